/**
 * Flow benchmarks, each against a baseline measured in the same run (interleaved, medians):
 *  1. whole process: a 1-step flow (`run: "true"`) vs `node -e 0`;
 *  2. engine overhead: 100 sequential `run: "true"` steps vs 100 sequential spawns from Node,
 *     and per extra step: (100-step less 1-step run) / 99 vs one spawn; how that per-step
 *     cost scales: per extra step in a 1,000-step chain vs in the 100-step one (flat is 1.0);
 *     and the peak RSS of the whole `neo flow run` process vs plain Node spawning them in turn;
 *  3. 50 parallel `sleep 0.2` steps (maxParallel 50) vs 50 parallel spawns, plus peak RSS;
 *  4. fan-out: foreach over 50 items, maxParallel 10, on the script backend: wall time and RSS;
 *  5. `--dry-run` of a 200-step plan vs `node -e 0`.
 * Sizes: --reps=7 --sequential=100 --long=1000 --parallel=50 --items=50 --steps=200
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { startRun } from '../engine/flow/index.js';
import { neoBinPath } from '../engine/util/package-root.js';
import { interleave, median, numberArgs, ratio, report, type Figure } from './harness.js';

const size = numberArgs({ reps: 7, sequential: 100, long: 1000, parallel: 50, items: 50, steps: 200 });
const BIN = neoBinPath();
const root = mkdtempSync(join(tmpdir(), 'neo-bench-flow-'));
const home = join(root, 'home');
// Reports a process's peak RSS (KB) into $NEO_BENCH_RSS when it exits.
const rssProbe = join(root, 'rss.cjs');
writeFileSync(
  rssProbe,
  "process.on('exit', () => require('fs').writeFileSync(process.env.NEO_BENCH_RSS, String(process.resourceUsage().maxRSS)));\n",
);

function project(name: string, files: Record<string, string>): string {
  const dir = join(root, name);
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  return dir;
}

const steps = (n: number, line: (i: number) => string) => Array.from({ length: n }, (_, i) => line(i)).join('\n');
const one = project('one', {
  'plan.yaml': 'name: one\nworkspace: { isolation: inplace }\nsteps:\n  - { id: a, run: "true" }\n',
});
const chain = (n: number) =>
  `name: sequential\nworkspace: { isolation: inplace }\nsteps:\n${steps(n, (i) => `  - { id: s${i}, run: "true"${i > 0 ? `, needs: [s${i - 1}]` : ''} }`)}\n`;
const sequential = project('sequential', { 'plan.yaml': chain(size.sequential) });
const long = project('long', { 'plan.yaml': chain(size.long) });
const parallel = project('parallel', {
  'plan.yaml': `name: parallel\nworkspace: { isolation: inplace }\ndefaults: { maxParallel: ${size.parallel} }\nsteps:\n${steps(size.parallel, (i) => `  - { id: p${i}, run: "sleep 0.2" }`)}\n`,
});
const fanOut = project('fan-out', {
  'plan.yaml': `name: fan-out\nworkspace: { isolation: copy }\ndefaults: { backend: script, maxRounds: 2 }\nsteps:\n  - id: each\n    foreach: { items: [${steps(size.items, (i) => `"i${i}"`).replace(/\n/g, ', ')}], maxParallel: 10 }\n    brief: write \${{ item }}\n    script: scripts/\${{ item }}.yaml\n`,
  ...Object.fromEntries(
    Array.from({ length: size.items }, (_, i) => [
      `scripts/i${i}.yaml`,
      `turns:\n  - - write: { path: out/i${i}.txt, content: "${i}\\n" }\n    - say: wrote i${i}\n`,
    ]),
  ),
});
const dry = project('dry', {
  'plan.yaml': `name: dry\ndefaults: { backend: script }\nsteps:\n${steps(size.steps, (i) => `  - { id: d${i}, ${i % 2 === 0 ? 'brief: "step ' + i + '"' : 'run: "true"'}${i > 0 ? `, needs: [d${i - 1}]` : ''} }`)}\n`,
});

/** Runs a node process to completion; returns wall ms and peak RSS (MB). */
function proc(args: string[], cwd: string): { ms: number; rssMb: number } {
  const out = join(root, `rss-${process.pid}-${Math.random().toString(36).slice(2)}`);
  const started = performance.now();
  const result = spawnSync(process.execPath, ['-r', rssProbe, ...args], {
    cwd,
    env: { ...process.env, NEO_HOME: home, NO_COLOR: '1', NEO_BENCH_RSS: out },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const ms = performance.now() - started;
  if (result.status !== 0) throw new Error(`${args.join(' ')} exited ${result.status}: ${String(result.stderr)}`);
  const rssMb = Number(readFileSync(out, 'utf8')) / 1024;
  rmSync(out, { force: true });
  return { ms, rssMb };
}

function spawnTrue(command: string): Promise<void> {
  return new Promise((resolve, reject) => {
    // Output piped and drained, as neo does (it keeps each command's output).
    const child = spawn('/bin/sh', ['-c', command]);
    child.stdout.resume();
    child.stderr.resume();
    child.on('error', reject);
    child.on('exit', () => resolve());
  });
}

async function inProcess(dir: string): Promise<number> {
  const started = performance.now();
  const outcome = await startRun({ home, cwd: dir, planFile: 'plan.yaml' });
  if (outcome.status !== 'succeeded') throw new Error(`${dir}: ${outcome.status} ${outcome.reason?.message ?? ''}`);
  return performance.now() - started;
}

/**
 * The peak RSS of the whole `neo flow run` of `dir` (median of 3) against plain Node running
 * `spawns` (a module body with `spawn` imported) in the same folder.
 */
function rssFigure(what: string, dir: string, spawns: string): Figure {
  const baseline = join(root, `rss-baseline-${Math.random().toString(36).slice(2)}.mjs`);
  writeFileSync(baseline, `import { spawn } from 'node:child_process';\n${spawns}\n`);
  return {
    name: `${what}, peak RSS of the whole process vs plain Node spawning them`,
    neo: median([0, 1, 2].map(() => proc([BIN, 'flow', 'run', 'plan.yaml'], dir).rssMb)),
    baseline: median([0, 1, 2].map(() => proc([baseline], dir).rssMb)),
    unit: 'MB',
  };
}

const figures: Figure[] = [];
const goals: Array<[string, number, number]> = [];
try {
  const baselineBin = ['-e', '0'];
  const oneStep = await interleave(
    size.reps,
    () => proc([BIN, 'flow', 'run', 'plan.yaml'], one).ms,
    () => proc(baselineBin, one).ms,
  );
  figures.push({ name: '1-step flow (run: true), whole process vs node -e 0', ...oneStep, unit: 'ms' });
  goals.push(['1-step', ratio(figures.at(-1)!), 2]);

  await inProcess(sequential);
  const seq = await interleave(
    Math.max(3, size.reps >> 1),
    () => inProcess(sequential),
    async () => {
      const started = performance.now();
      for (let i = 0; i < size.sequential; i++) await spawnTrue('true');
      return performance.now() - started;
    },
  );
  figures.push({
    name: `${size.sequential} sequential run steps vs ${size.sequential} sequential spawns from Node`,
    ...seq,
    unit: 'ms',
  });
  goals.push([`${size.sequential} sequential`, ratio(figures.at(-1)!), 1.3]);

  // Per extra step: the sequential run less a 1-step run (start, definitions, end), per step,
  // against one spawn (the baseline's spawns above, per spawn): what each step adds to a run.
  const singles: number[] = [];
  for (let i = 0; i < Math.max(3, size.reps >> 1); i++) singles.push(await inProcess(one));
  figures.push({
    name: `per extra sequential step (${size.sequential}-step less 1-step run, per step) vs one spawn from Node`,
    neo: (seq.neo - median(singles)) / (size.sequential - 1),
    baseline: seq.baseline / size.sequential,
    unit: 'ms',
  });
  goals.push(['per extra step', ratio(figures.at(-1)!), 1.2]);

  // A step's completion should cost the same in a long chain: scheduling is O(its dependents).
  const perStep = figures.at(-1)!.neo;
  const longRun = await inProcess(long);
  figures.push({
    name: `per extra sequential step in a ${size.long}-step chain vs in the ${size.sequential}-step one`,
    neo: (longRun - median(singles)) / (size.long - 1),
    baseline: perStep,
    unit: 'ms',
  });
  goals.push([`per step at ${size.long}`, ratio(figures.at(-1)!), 1.2]);

  const seqRss = rssFigure(
    `${size.sequential} sequential steps`,
    sequential,
    `for (let i = 0; i < ${size.sequential}; i++) await new Promise((r) => { const c = spawn('/bin/sh', ['-c', 'true']); c.stdout.resume(); c.stderr.resume(); c.on('exit', r); });`,
  );
  figures.push(seqRss);
  goals.push(['sequential RSS MB', seqRss.neo, 60]);

  const par = await interleave(
    Math.max(3, size.reps >> 1),
    () => inProcess(parallel),
    async () => {
      const started = performance.now();
      await Promise.all(Array.from({ length: size.parallel }, () => spawnTrue('sleep 0.2')));
      return performance.now() - started;
    },
  );
  figures.push({
    name: `${size.parallel} parallel sleep 0.2 steps (maxParallel ${size.parallel}) vs parallel spawns`,
    ...par,
    unit: 'ms',
  });
  goals.push([`${size.parallel} parallel`, ratio(figures.at(-1)!), 1.2]);
  const parRss = rssFigure(
    `${size.parallel} parallel steps`,
    parallel,
    `await Promise.all(Array.from({ length: ${size.parallel} }, () => new Promise((r) => { const c = spawn('/bin/sh', ['-c', 'sleep 0.2']); c.stdout.resume(); c.stderr.resume(); c.on('exit', r); })));`,
  );
  figures.push(parRss);
  goals.push(['parallel RSS MB', parRss.neo, 60]);

  const fan = { neo: [] as number[], rss: [] as number[], base: [] as number[], baseRss: [] as number[] };
  for (let i = 0; i < 3; i++) {
    const run = proc([BIN, 'flow', 'run', 'plan.yaml'], fanOut);
    fan.neo.push(run.ms);
    fan.rss.push(run.rssMb);
    const base = proc([BIN, 'flow', 'run', 'plan.yaml'], one);
    fan.base.push(base.ms);
    fan.baseRss.push(base.rssMb);
  }
  figures.push({
    name: `foreach ${size.items} script agents (maxParallel 10), wall time vs a 1-step flow`,
    neo: median(fan.neo),
    baseline: median(fan.base),
    unit: 'ms',
  });
  figures.push({
    name: `foreach ${size.items} script agents, peak RSS vs a 1-step flow`,
    neo: median(fan.rss),
    baseline: median(fan.baseRss),
    unit: 'MB',
  });
  goals.push(['fan-out RSS MB', median(fan.rss), 300]);

  const dryRun = await interleave(
    size.reps,
    () => proc([BIN, 'flow', 'run', 'plan.yaml', '--dry-run'], dry).ms,
    () => proc(baselineBin, dry).ms,
  );
  figures.push({ name: `--dry-run of a ${size.steps}-step plan vs node -e 0`, ...dryRun, unit: 'ms' });
  goals.push(['dry-run', ratio(figures.at(-1)!), 2]);

  for (const figure of figures) report(figure);
  console.log(
    `flow: ${goals.map(([name, value, goal]) => `${name} ${value.toFixed(2)} (goal ≤ ${goal}) ${value <= goal ? 'ok' : 'MISSED'}`).join(' · ')}`,
  );
} finally {
  rmSync(root, { recursive: true, force: true });
}
