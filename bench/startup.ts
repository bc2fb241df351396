/**
 * Start-up benchmarks: whole `neo` processes against `node -e 0` in the same run (interleaved,
 * medians), each as wall time and as CPU time (user + system of the process, which the other
 * work on a shared machine disturbs far less than the wall clock):
 *  1. `neo --help`;
 *  2. `neo validate` cold, the packaged definitions only (an empty folder);
 *  3. a 1-step flow (`run: "true"`) in place;
 *  4. a 1-step flow with the default isolation (a worktree of a one-commit repository);
 *  and the peak RSS of each.
 * `NEO_BENCH_BIN=<path to neo.js>` measures another build (an A/B against main) in the same way.
 * Sizes: --reps=11
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { neoBinPath } from '../engine/util/package-root.js';
import { interleave, numberArgs, ratio, report, type Figure } from './harness.js';

const size = numberArgs({ reps: 11 });
const BIN = process.env.NEO_BENCH_BIN ?? neoBinPath();
const root = mkdtempSync(join(tmpdir(), 'neo-bench-startup-'));
const home = join(root, 'home');
// Reports a process's CPU time (ms) and peak RSS (KB) into $NEO_BENCH_USAGE when it exits.
const probe = join(root, 'usage.cjs');
writeFileSync(
  probe,
  "process.on('exit', () => { const u = process.resourceUsage(); require('fs').writeFileSync(process.env.NEO_BENCH_USAGE, `${(u.userCPUTime + u.systemCPUTime) / 1000} ${u.maxRSS}`); });\n",
);

const empty = join(root, 'empty');
mkdirSync(empty);
const inplace = join(root, 'inplace');
mkdirSync(inplace);
writeFileSync(
  join(inplace, 'plan.yaml'),
  'name: one\nworkspace: { isolation: inplace }\nsteps:\n  - { id: a, run: "true" }\n',
);
const repo = join(root, 'repo');
mkdirSync(repo);
writeFileSync(join(repo, 'plan.yaml'), 'name: one\nsteps:\n  - { id: a, run: "true" }\n');
writeFileSync(join(repo, 'README.md'), '# bench\n');
const git = (...args: string[]) => execFileSync('git', args, { cwd: repo, stdio: 'ignore' });
git('init', '-q');
git('add', '-A');
git('-c', 'user.name=bench', '-c', 'user.email=bench@example.com', 'commit', '-qm', 'bench');

interface Usage {
  ms: number;
  cpuMs: number;
  rssMb: number;
}

/** Runs a node process to completion: wall ms, CPU ms, peak RSS. */
function proc(args: string[], cwd: string): Usage {
  const out = join(root, `usage-${Math.random().toString(36).slice(2)}`);
  const started = performance.now();
  const result = spawnSync(process.execPath, ['-r', probe, ...args], {
    cwd,
    env: { ...process.env, NEO_HOME: home, NO_COLOR: '1', NEO_BENCH_USAGE: out },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const ms = performance.now() - started;
  if (result.status !== 0) throw new Error(`${args.join(' ')} exited ${result.status}: ${String(result.stderr)}`);
  const [cpu, rss] = readFileSync(out, 'utf8').split(' ').map(Number);
  rmSync(out, { force: true });
  return { ms, cpuMs: cpu!, rssMb: rss! / 1024 };
}

const cases: Array<{ name: string; args: string[]; cwd: string; goal: number }> = [
  { name: 'neo --help', args: [BIN, '--help'], cwd: empty, goal: 1.3 },
  { name: 'neo validate cold (packaged definitions)', args: [BIN, 'validate'], cwd: empty, goal: 1.5 },
  { name: '1-step flow in place', args: [BIN, 'flow', 'run', 'plan.yaml'], cwd: inplace, goal: 1.5 },
  { name: '1-step flow, default isolation (worktree)', args: [BIN, 'flow', 'run', 'plan.yaml'], cwd: repo, goal: 1.8 },
];

const goals: string[] = [];
try {
  console.log(
    `startup: ${BIN}; load average ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')} on this machine`,
  );
  for (const c of cases) {
    proc(c.args, c.cwd);
    const runs: { neo: Usage[]; base: Usage[] } = { neo: [], base: [] };
    const wall = await interleave(
      size.reps,
      () => runs.neo[runs.neo.push(proc(c.args, c.cwd)) - 1]!.ms,
      () => runs.base[runs.base.push(proc(['-e', '0'], c.cwd)) - 1]!.ms,
    );
    const med = (list: Usage[], key: keyof Usage) =>
      [...list.map((u) => u[key])].sort((a, b) => a - b)[list.length >> 1]!;
    const figures: Figure[] = [
      { name: `${c.name}, wall vs node -e 0`, ...wall, unit: 'ms' },
      {
        name: `${c.name}, CPU vs node -e 0`,
        neo: med(runs.neo, 'cpuMs'),
        baseline: med(runs.base, 'cpuMs'),
        unit: 'ms',
      },
      {
        name: `${c.name}, peak RSS vs node -e 0`,
        neo: med(runs.neo, 'rssMb'),
        baseline: med(runs.base, 'rssMb'),
        unit: 'MB',
      },
    ];
    for (const figure of figures) report(figure);
    const value = ratio(figures[0]!);
    goals.push(
      `${c.name} ${value.toFixed(2)} (CPU ${ratio(figures[1]!).toFixed(2)}; goal ≤ ${c.goal}) ${value <= c.goal ? 'ok' : 'MISSED'}`,
    );
  }
  console.log(`startup: ${goals.join(' · ')}; load average after ${loadavg()[0]!.toFixed(2)}`);
} finally {
  rmSync(root, { recursive: true, force: true });
}
