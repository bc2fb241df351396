/**
 * `neo <command>` registers only the group that owns the command, found by the names each group
 * declares: the names must be exactly what the group registers, or a command would be missed.
 */
import { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { GROUPS } from '../../../cli/groups/index.js';
import { buildProgram } from '../../../cli/program.js';
import type { ProgramContext } from '../../../cli/program-context.js';
import type { CommandIO } from '../../../cli/io.js';

const io = { stdout: process.stdout, stderr: process.stderr, env: {}, cwd: process.cwd() } as unknown as CommandIO;
const context: ProgramContext = { io, result: { exitCode: 0 }, topLevelOnly: false, lazy: () => async () => {} };
const names = (program: Command) => program.commands.flatMap((c) => [c.name(), ...c.aliases()]);

describe('command groups', () => {
  it('declare exactly the top-level commands they register, each name in one group', () => {
    for (const group of GROUPS) {
      const program = new Command();
      group.register(program, context);
      expect(names(program).sort()).toEqual([...group.commands].sort());
    }
    const all = GROUPS.flatMap((group) => group.commands);
    expect(new Set(all).size).toBe(all.length);
  });

  it('registers only the owning group for a command, every group for help or an unknown word', () => {
    const only = (word: string) => names(buildProgram(io, '0.0.0', ['node', 'neo', word]).program);
    expect(only('validate')).toEqual(['validate', 'schema', 'init', 'dev', 'trust']);
    expect(only('persona')).toEqual(['personas', 'persona', 'backends', 'doctor', 'capabilities']);
    const every = GROUPS.flatMap((group) => group.commands);
    expect(only('--help')).toEqual(every);
    expect(only('valdate')).toEqual(every);
    expect(names(buildProgram(io, '0.0.0', ['node', 'neo']).program)).toEqual(every);
  });

  it('builds only the top-level commands for the top-level help, which reads the same', () => {
    const full = buildProgram(io, '0.0.0', ['node', 'neo', 'valdate']).program;
    for (const word of ['--help', '-h', 'help']) {
      const top = buildProgram(io, '0.0.0', ['node', 'neo', word]).program;
      expect(top.commands.flatMap((c) => c.commands)).toEqual([]);
      expect(top.helpInformation()).toBe(full.helpInformation());
    }
    // `neo help flow` is a group's help: built whole.
    const flow = buildProgram(io, '0.0.0', ['node', 'neo', 'help', 'flow']).program;
    expect(flow.commands.find((c) => c.name() === 'flow')!.commands.length).toBeGreaterThan(0);
  });
});
