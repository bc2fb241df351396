/**
 * The dbos engine's e2e fixtures: one embedded PostgreSQL per test file (`neo db up` on a free
 * loopback port, stopped and purged after the file), a fresh database per test, and workers as
 * separate `neo worker` processes, each with its own NEO_HOME (as on separate machines).
 */
import { execa, type ResultPromise } from 'execa';
import { existsSync } from 'node:fs';
import { chmod, mkdtemp, readFile, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { NEO_BIN, runNeo } from '../helpers/cli.js';
import { watchFolder } from '../helpers/leaks.js';
import { writeTree } from '../helpers/temp.js';
import { afterAll, afterEach, beforeAll } from 'vitest';
import { waitForOutput } from './flow-helpers.js';

export interface TestDb {
  dir: string;
  home: string;
  url: string;
}

/** A free TCP port on 127.0.0.1 (bound, read and released). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** `neo db up` in a folder of its own (entered by `nobody`, whom PostgreSQL runs as under root). */
export async function startDb(): Promise<TestDb> {
  const dir = await mkdtemp(join(tmpdir(), 'neo-dbos-'));
  await chmod(dir, 0o711);
  const home = join(dir, 'home');
  watchFolder(dir);
  const port = await freePort();
  const up = await execa(
    process.execPath,
    [NEO_BIN, 'db', 'up', '--port', String(port), '--data-dir', join(dir, 'data'), '--json'],
    {
      env: { NEO_HOME: home, NO_COLOR: '1' },
      reject: false,
      timeout: 120_000,
    },
  );
  if (up.exitCode !== 0) throw new Error(`neo db up failed: ${up.stderr}`);
  // The URL printed hides its password; the record beside NEO_HOME holds it (0600).
  const record = JSON.parse(await readFile(join(home, 'db', 'db.json'), 'utf8')) as { url: string };
  return { dir, home, url: record.url };
}

export async function stopDb(db: TestDb | undefined): Promise<void> {
  if (db === undefined) return;
  await execa(process.execPath, [NEO_BIN, 'db', 'down', '--purge'], {
    env: { NEO_HOME: db.home, NO_COLOR: '1' },
    reject: false,
    timeout: 60_000,
  });
  await rm(db.dir, { recursive: true, force: true });
}

let databases = 0;

/** A fresh database on the test server: each test's runs, queue and workers are its own. */
export async function freshDatabase(db: TestDb): Promise<string> {
  const name = `t${process.pid}_${++databases}`;
  await query(db.url, `CREATE DATABASE ${name}`);
  return db.url.replace(/\/postgres$/, `/${name}`);
}

/** One query on its own connection. */
export async function query<T = Record<string, unknown>>(
  url: string,
  text: string,
  values: unknown[] = [],
): Promise<T[]> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5_000 });
  await client.connect();
  try {
    return (await client.query(text, values)).rows as T[];
  } finally {
    await client.end();
  }
}

export interface Worker {
  id: string;
  home: string;
  child: ResultPromise;
}

/** Starts `neo worker` and waits until it is ready. */
export async function startWorker(
  url: string,
  home: string,
  id: string,
  concurrency = 1,
  extra: string[] = [],
  env: Record<string, string> = {},
): Promise<Worker> {
  watchFolder(home);
  const child = execa(
    process.execPath,
    [NEO_BIN, 'worker', '--database-url', url, '--executor-id', id, '--concurrency', String(concurrency), ...extra],
    { env: { NO_COLOR: '1', ...env, NEO_HOME: home }, reject: false, stdin: 'ignore' },
  ) as ResultPromise;
  await waitForOutput(child, /worker \S+ ready/, 'stderr');
  return { id, home, child };
}

/**
 * The two workers of a takeover test, `wa` and `wb`, each with a NEO_HOME of its own under `root`
 * (as on two machines): each home gets `files` and trusts `trust` (a repository) before its
 * worker starts with `env`.
 */
export async function startTwoWorkers(
  url: string,
  root: string,
  setup: { files?: Record<string, string>; trust?: string; env?: Record<string, string> } = {},
): Promise<Worker[]> {
  const started: Worker[] = [];
  for (const name of ['a', 'b']) {
    const home = join(root, name);
    if (setup.files !== undefined) await writeTree(home, setup.files);
    if (setup.trust !== undefined) {
      const trusted = await runNeo(['trust'], { cwd: setup.trust, env: { NEO_HOME: home } });
      if (trusted.exitCode !== 0) throw new Error(`neo trust in ${home}: exit ${trusted.exitCode}\n${trusted.stderr}`);
    }
    started.push(await startWorker(url, home, `w${name}`, 1, [], setup.env));
  }
  return started;
}

/** Stops a worker (SIGTERM, then SIGKILL after 10 s). */
export async function stopWorker(worker: Worker | undefined): Promise<void> {
  if (worker === undefined || (worker.child.exitCode !== undefined && worker.child.exitCode !== null)) return;
  worker.child.kill('SIGTERM');
  const timer = setTimeout(() => worker.child.kill('SIGKILL'), 10_000);
  await worker.child;
  clearTimeout(timer);
}

/** Polls `probe` until it returns a value (not undefined), for at most `ms`. */
export async function waitFor<T>(what: string, probe: () => Promise<T | undefined>, ms = 60_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await probe().catch(() => undefined);
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** The status neo recorded for a dbos run, and the executor DBOS has it on. */
export async function runRow(
  url: string,
  runId: string,
): Promise<{ status: string; executor: string | null } | undefined> {
  const rows = await query<{ status: string; executor_id: string | null }>(
    url,
    `SELECT r.status, w.executor_id FROM neo.runs r LEFT JOIN dbos.workflow_status w ON w.workflow_uuid = r.run_id WHERE r.run_id = $1`,
    [runId],
  );
  return rows[0] === undefined ? undefined : { status: rows[0].status, executor: rows[0].executor_id };
}

/** The run's row once it has ended (succeeded or failed), waiting at most `ms`. */
export function runEnded(
  url: string,
  runId: string,
  ms?: number,
): Promise<{ status: string; executor: string | null }> {
  return waitFor(
    `run ${runId} to end`,
    async () => {
      const row = await runRow(url, runId);
      return row !== undefined && ['succeeded', 'failed'].includes(row.status) ? row : undefined;
    },
    ms,
  );
}

/**
 * Kills -9 the worker DBOS has the run on, takes it off `workers`, and settles its local copy (and
 * sweeps its orphans) as any reader does. Returns the victim and the first worker left.
 */
export async function killOwner(
  url: string,
  runId: string,
  workers: Worker[],
): Promise<{ victim: Worker; survivor: Worker }> {
  const owner = (await runRow(url, runId))!.executor;
  const victim = workers.find((w) => w.id === owner)!;
  victim.child.kill('SIGKILL');
  await victim.child;
  workers.splice(workers.indexOf(victim), 1);
  const list = await runNeo(['flow', 'list'], { env: { NEO_HOME: victim.home } });
  if (list.exitCode !== 0)
    throw new Error(`neo flow list in the dead worker's home: exit ${list.exitCode}\n${list.stderr}`);
  return { victim, survivor: workers[0]! };
}

/**
 * Starts `plan.yaml` in `cwd` on the dbos engine, detached, from a client home of its own, and
 * waits until the step that writes `marker` in `cwd` has started: the point where a takeover test
 * kills the run's worker. Returns the run's id.
 */
export async function detachedRunAt(url: string, cwd: string, clientHome: string, marker: string): Promise<string> {
  const started = await runNeo(
    ['flow', 'run', 'plan.yaml', '--engine', 'dbos', '--database-url', url, '--detach', '--json'],
    { cwd, env: { NEO_HOME: clientHome } },
  );
  if (started.exitCode !== 0) throw new Error(`neo flow run --detach: exit ${started.exitCode}\n${started.stderr}`);
  const runId = (JSON.parse(started.stdout.split('\n')[0]!) as { runId: string }).runId;
  await waitFor(`${marker} to appear`, async () => (existsSync(join(cwd, marker)) ? true : undefined));
  return runId;
}

/** The seqs of a run's mirrored events, in order, with their types. */
export async function recordedEvents(
  url: string,
  runId: string,
): Promise<Array<{ seq: number; type: string; step?: string }>> {
  const rows = await query<{ seq: number; event: { type: string; step?: string } }>(
    url,
    `SELECT seq, event FROM neo.run_events WHERE run_id = $1 ORDER BY seq`,
    [runId],
  );
  return rows.map((r) => ({
    seq: r.seq,
    type: r.event.type,
    ...(r.event.step === undefined ? {} : { step: r.event.step }),
  }));
}

/**
 * A test file's fixture: its embedded PostgreSQL started before the file and stopped after it,
 * and the workers a test pushes onto `workers` stopped after each test.
 */
export function useDbos(): { readonly db: TestDb; workers: Worker[] } {
  let db: TestDb | undefined;
  const workers: Worker[] = [];
  beforeAll(async () => {
    db = await startDb();
  }, 120_000);
  afterAll(() => stopDb(db), 60_000);
  afterEach(async () => {
    await Promise.all(workers.splice(0).map(stopWorker));
  });
  return {
    get db(): TestDb {
      if (db === undefined) throw new Error('the test database did not start');
      return db;
    },
    workers,
  };
}
