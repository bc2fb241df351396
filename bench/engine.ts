/**
 * The dbos engine against the local one, on an embedded PostgreSQL started for the run:
 *  1. per-step overhead: the slope of a flow's wall time in its number of `run: "true"` steps
 *     (1 vs --steps), dbos (one worker, `neo flow run --engine dbos` following) vs local
 *     (`neo flow run`); the figure is dbos's slope, the baseline local's (goal: ≤ 10 ms more);
 *  2. throughput (the issue's 200-flow figure): --runs runs of 5 `run: "true"` steps enqueued at
 *     once, with 1 and with 2 workers at concurrency 4, in steps per second; each against the
 *     local engine driving the same runs 4 at a time (`neo flow run` processes), and 2 workers
 *     against 1;
 *  3. a worker's RSS after it has idled 3 s (goal ≤ 120 MB), against `node -e` holding a timer.
 * Sizes: --reps=5 --steps=21 --runs=200
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { DbosClient } from '../engine/flow/engines/dbos/client.js';
import { dbDown, dbUp } from '../engine/flow/engines/dbos/embedded-db.js';
import { neoBinPath } from '../engine/util/package-root.js';
import { interleave, numberArgs, report } from './harness.js';

const size = numberArgs({ reps: 5, steps: 21, runs: 200 });
const BIN = neoBinPath();
const root = mkdtempSync(join(tmpdir(), 'neo-bench-engine-'));
chmodSync(root, 0o711); // PostgreSQL runs as nobody under root: it must enter this folder
const home = join(root, 'home');
const port = 20_000 + Math.floor(Math.random() * 20_000);

function flow(name: string, steps: number): string {
  const dir = join(root, name);
  mkdirSync(dir, { recursive: true });
  const lines = Array.from(
    { length: steps },
    (_, i) => `  - { id: s${i}, run: "true"${i > 0 ? `, needs: [s${i - 1}]` : ''} }`,
  );
  writeFileSync(join(dir, 'plan.yaml'), `name: ${name}\nworkspace: { isolation: copy }\nsteps:\n${lines.join('\n')}\n`);
  return dir;
}

function timed(args: string[], cwd: string, env: Record<string, string>): number {
  const start = performance.now();
  const r = spawnSync(process.execPath, [BIN, ...args], { cwd, env: { ...process.env, ...env }, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`neo ${args.join(' ')} failed: ${r.stderr}`);
  return performance.now() - start;
}

function worker(url: string, id: string): Promise<ChildProcess> {
  const child = spawn(
    process.execPath,
    [BIN, 'worker', '--database-url', url, '--executor-id', id, '--concurrency', '4'],
    {
      env: { ...process.env, NEO_HOME: join(root, id) },
      stdio: ['ignore', 'ignore', 'pipe'],
    },
  );
  return new Promise((resolve, reject) => {
    let seen = '';
    child.stderr!.on('data', (chunk: Buffer) => {
      seen += chunk.toString();
      if (/ ready /.test(seen)) resolve(child);
    });
    child.once('exit', () => reject(new Error(`worker ${id} exited: ${seen}`)));
  });
}

async function stop(child: ChildProcess): Promise<void> {
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await exited;
}

function rssMb(pid: number): number {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8').match(/VmRSS:\s+(\d+)/);
  return Number(line![1]) / 1024;
}

/** Enqueues `runs` runs of 5 steps into a fresh database and times them to the last one's end. */
async function throughput(url: string, workers: number): Promise<number> {
  const dir = flow(`five-${workers}`, 5);
  const client = new DbosClient(url);
  await client.ready();
  const ids = Array.from(
    { length: size.runs },
    (_, i) => `20260101-00000${workers}-${i.toString(16).padStart(6, '0')}`,
  );
  for (let i = 0; i < ids.length; i += 25)
    await Promise.all(
      ids
        .slice(i, i + 25)
        .map((runId) => client.start({ runId, flow: 'five', planFile: join(dir, 'plan.yaml'), cwd: dir, inputs: {} })),
    );
  const start = performance.now();
  const started = await Promise.all(Array.from({ length: workers }, (_, i) => worker(url, `tp${workers}-${i}`)));
  for (const id of ids) await client.result(id, 600_000);
  const seconds = (performance.now() - start) / 1000;
  await Promise.all(started.map(stop));
  await client.close();
  return (size.runs * 5) / seconds;
}

/** The baseline: the same runs on the local engine, `neo flow run` 4 processes at a time. */
async function localThroughput(): Promise<number> {
  const dir = flow('five-local', 5);
  const env = { ...process.env, NEO_HOME: join(root, 'local-home') };
  const one = () =>
    new Promise<void>((resolve, reject) => {
      const child = spawn(process.execPath, [BIN, 'flow', 'run', 'plan.yaml'], { cwd: dir, env, stdio: 'ignore' });
      child.once('exit', (code) => (code === 0 ? resolve() : reject(new Error(`local run exited ${code}`))));
    });
  let next = 0;
  const start = performance.now();
  await Promise.all(
    Array.from({ length: 4 }, async () => {
      while (next++ < size.runs) await one();
    }),
  );
  return (size.runs * 5) / ((performance.now() - start) / 1000);
}

async function database(url: string, name: string): Promise<string> {
  const pg = (await import('pg')).default;
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  await c.query(`CREATE DATABASE ${name}`);
  await c.end();
  return url.replace(/\/postgres$/, `/${name}`);
}

try {
  const { db } = await dbUp(home, { port, dataDir: join(root, 'data') });
  const load = readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
  console.log(`engine bench (load ${load}; ${size.reps} reps, ${size.steps} steps, ${size.runs} runs)`);

  // 1. per-step overhead
  const url = await database(db.url, 'steps');
  const w = await worker(url, 'steps');
  const short = flow('short', 1);
  const long = flow('long', size.steps);
  const env = { NEO_HOME: join(root, 'client') };
  const dbos = (dir: string) => () =>
    timed(['flow', 'run', 'plan.yaml', '--engine', 'dbos', '--database-url', url], dir, env);
  const local = (dir: string) => () => timed(['flow', 'run', 'plan.yaml'], dir, env);
  const d = await interleave(size.reps, dbos(long), dbos(short));
  const l = await interleave(size.reps, local(long), local(short));
  const slope = (r: { neo: number; baseline: number }) => (r.neo - r.baseline) / (size.steps - 1);
  report({
    name: `per-step wall time, dbos vs local (${size.steps} vs 1 steps)`,
    neo: slope(d),
    baseline: slope(l),
    unit: 'ms',
  });
  console.log(`  dbos overhead per step: ${(slope(d) - slope(l)).toFixed(2)} ms (goal ≤ 10 ms)`);

  // 3. idle RSS (the worker above has idled through nothing but its heartbeat since)
  await new Promise((resolve) => setTimeout(resolve, 3_000));
  const idle = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
  await new Promise((resolve) => setTimeout(resolve, 500));
  report({
    name: 'worker RSS at idle vs node holding a timer',
    neo: rssMb(w.pid!),
    baseline: rssMb(idle.pid!),
    unit: 'MB',
  });
  idle.kill();
  await stop(w);

  // 2. throughput
  const one = await throughput(await database(db.url, 'one'), 1);
  const two = await throughput(await database(db.url, 'two'), 2);
  const local4 = await localThroughput();
  for (const [workers, figure] of [
    [1, one],
    [2, two],
  ] as const)
    report({
      name: `throughput, ${size.runs} runs × 5 steps, dbos ${workers} worker${workers === 1 ? '' : 's'} at concurrency 4 vs local 4 at a time`,
      neo: figure,
      baseline: local4,
      unit: 'steps/s',
      lowerIsBetter: false,
    });
  report({
    name: `throughput, ${size.runs} runs × 5 steps, 2 workers vs 1 (concurrency 4)`,
    neo: two,
    baseline: one,
    unit: 'steps/s',
    lowerIsBetter: false,
  });
} finally {
  await dbDown(home).catch(() => undefined);
  rmSync(root, { recursive: true, force: true });
}
