import { Command } from 'commander';
import { neoHome } from '../engine/util/neo-home.js';
import { tightenStore } from '../engine/util/private-store.js';
import { GROUPS } from './groups/index.js';
import type { CommandIO } from './io.js';
import type { ProgramContext, ProgramResult } from './program-context.js';

const TOP_LEVEL_HELP = ['--help', '-h', 'help'];

/**
 * Builds the `neo` commander program. With `argv`, only the group that owns the command being
 * run is registered (building every group's options is a measurable share of a short command's
 * start-up); help, a bare `neo` or an unknown command get every group, in help order, and the
 * top-level help only the groups' top-level commands.
 */
export function buildProgram(
  io: CommandIO,
  version: string,
  argv: readonly string[] = [],
): { program: Command; result: ProgramResult } {
  const result: ProgramResult = { exitCode: 0 };
  const program = new Command('neo')
    .description('A declarative workflow engine for coding agents.')
    .version(version, '-V, --version', 'print the version')
    .showHelpAfterError('(run `neo help` for usage)')
    .exitOverride()
    .configureOutput({ writeOut: (s) => io.stdout.write(s), writeErr: (s) => io.stderr.write(s) });
  const wanted = argv[2];
  const context: ProgramContext = {
    io,
    result,
    // `neo --help` (or `neo help`, `-h`) alone: the top-level help lists only top-level commands.
    topLevelOnly: argv.length === 3 && TOP_LEVEL_HELP.includes(wanted!),
    lazy(load) {
      return async (...args: unknown[]) => {
        // A store made before neo kept it private is closed once, and said so, before any command uses it.
        const tightened = tightenStore(neoHome(io.env));
        if (tightened !== undefined) io.stderr.write(`${tightened}\n`);
        const module = await load();
        // commander passes (…positionals, options, command); drop the command object.
        result.exitCode = await module.run(io, ...(args.slice(0, -1) as never));
      };
    },
  };
  const owner = wanted === undefined ? undefined : GROUPS.find((group) => group.commands.includes(wanted));
  for (const group of owner === undefined ? GROUPS : [owner]) group.register(program, context);
  return { program, result };
}
