/**
 * An unconfined `run:` step's shell joins its process bound as its own first command (one exec,
 * not a wrapper shell that execs another), through the neo binary: the user's script runs as it
 * would under `/bin/sh -c` alone (same `$0`, no arguments, its syntax errors reported the same),
 * it and everything it starts are in the bound from the start, and a flood stops at the cap.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { probeProcessBound } from '../../engine/execution/index.js';
import { runNeo } from '../helpers/cli.js';
import { tempDir, writeTree } from '../helpers/temp.js';

async function project(files: Record<string, string>) {
  const root = await tempDir('neo-e2e-bound-shell-');
  await writeTree(root, files);
  const neo = (args: string[]) => runNeo(args, { cwd: root, env: { NEO_HOME: `${root}/home` } });
  return { root, neo };
}

const summary = (stdout: string) =>
  JSON.parse(stdout.trim().split('\n').at(-1)!) as { status: string; cause: string | null; exitCode: number };

/** Pids of live processes whose command line holds `marker` (a unique sleep length). */
function processesWith(marker: string): number[] {
  const found: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const cmdline = readFileSync(`/proc/${name}/cmdline`, 'utf8');
      const state = /\) (\S)/.exec(readFileSync(`/proc/${name}/stat`, 'utf8'))?.[1];
      if (state !== 'Z' && cmdline.split('\0').includes(marker)) found.push(Number(name));
    } catch {
      // gone meanwhile
    }
  }
  return found;
}

describe("an unconfined run step's shell is bounded from its first command", () => {
  it('sees what `/bin/sh -c` alone gives it, is in its own pids cgroup with its children, and a syntax error exits 2 as before', async () => {
    const { neo } = await project({
      'plan.yaml':
        `name: sh\nworkspace: { isolation: inplace }\nsandbox: none\nsteps:\n` +
        `  - { id: a, run: 'echo "zero:$0 args:$#"; grep -h "^[0-9]*:pids:" /proc/$$/cgroup /proc/self/cgroup' }\n` +
        `  - { id: b, run: "if", needs: [a] }\n`,
    });
    const result = await neo(['flow', 'run', 'plan.yaml', '--json']);
    expect(summary(result.stdout), result.stdout + result.stderr).toMatchObject({
      status: 'failed',
      cause: 'FLOW_COMMAND_FAILED',
      exitCode: 1,
    });
    expect(result.stdout).toContain('zero:/bin/sh args:0');
    // The shell itself and a process it started (the output is shown more than once): both in
    // neo's per-command cgroup.
    const groups = [...result.stdout.matchAll(/\d+:pids:(\/[^\\"]*)/g)].map((m) => m[1]);
    expect(groups.length).toBeGreaterThanOrEqual(2);
    expect(new Set(groups).size).toBe(1);
    expect(groups[0]).toMatch(/\/neo-\d+-\d+-\d+-\d+$/);
    expect(result.stdout).toMatch(/`if` exited 2: \/bin\/sh: 1: Syntax error/);
  });

  it('a flood of background processes in a `sandbox: none` step ends at its maxProcesses, nothing left', async () => {
    const marker = '71.25';
    const { neo } = await project({
      'flood.yaml':
        `name: flood\nworkspace: { isolation: inplace }\nsandbox: none\nsteps:\n` +
        `  - id: flood\n    timeout: 30s\n    maxProcesses: 32\n` +
        `    run: 'i=0; while [ $i -lt 200 ]; do sleep ${marker} & i=$((i+1)); done; wait'\n`,
    });
    const result = await neo(['flow', 'run', 'flood.yaml', '--json']);
    expect(summary(result.stdout), result.stdout + result.stderr).toMatchObject({
      status: 'failed',
      cause: 'FLOW_STEP_PROCESS_LIMIT',
      exitCode: 1,
    });
    expect(result.stdout).toMatch(/hit its limit of 32 processes/);
    expect(processesWith(marker)).toEqual([]);
  });

  // The folder this test's (and so the neo it starts) pids cgroups are made in.
  const bound = probeProcessBound();
  const cgroupDir = /^cgroup pids \((.*)\)$/.exec(bound.detail)?.[1];

  it.runIf(cgroupDir !== undefined)(
    "a clean command's cgroup is the next one's, capped anew, and none is left once neo exits",
    async () => {
      const marker = '73.25';
      const group = `grep -h "^[0-9]*:pids:" /proc/self/cgroup | cut -d: -f3 >> groups.txt`;
      const { root, neo } = await project({
        'clean.yaml':
          `name: clean\nworkspace: { isolation: inplace }\nsandbox: none\nsteps:\n` +
          `  - { id: a, run: '${group}' }\n  - { id: b, run: '${group}', needs: [a] }\n`,
        'flood.yaml':
          `name: flood\nworkspace: { isolation: inplace }\nsandbox: none\nsteps:\n` +
          `  - { id: a, run: '${group}' }\n` +
          `  - id: flood\n    needs: [a]\n    timeout: 30s\n    maxProcesses: 16\n` +
          `    run: '${group}; i=0; while [ $i -lt 100 ]; do sleep ${marker} & i=$((i+1)); done; wait'\n`,
      });
      const groups = () => readFileSync(join(root, 'groups.txt'), 'utf8').trim().split('\n');
      const clean = await neo(['flow', 'run', 'clean.yaml', '--json']);
      expect(summary(clean.stdout), clean.stdout + clean.stderr).toMatchObject({ status: 'succeeded' });
      const [a, b] = groups();
      expect(a).toMatch(/\/neo-\d+-\d+-\d+-\d+$/);
      expect(b).toBe(a);
      expect(existsSync(join(cgroupDir!, basename(a!)))).toBe(false);

      const flood = await neo(['flow', 'run', 'flood.yaml', '--json']);
      expect(summary(flood.stdout), flood.stdout + flood.stderr).toMatchObject({ cause: 'FLOW_STEP_PROCESS_LIMIT' });
      // The flood ran in the cgroup the first step left (it held the default cap) and stopped at its own.
      const [, , first, flooded] = groups();
      expect(flooded).toBe(first);
      expect(flood.stdout).toMatch(/hit its limit of 16 processes/);
      expect(processesWith(marker)).toEqual([]);
      expect(existsSync(join(cgroupDir!, basename(first!)))).toBe(false);
    },
  );
});
