/**
 * The dbos engine's bad input and faults, through the binary: a database that refuses or never
 * answers makes every command fail within a bound with ENGINE_DB_UNREACHABLE (exit 9), never a
 * hang (DBOSClient.enqueue alone would wait forever); a run enqueued twice under one id is one
 * run with each step recorded once; a run is cancelled from another process; a database at
 * another neo schema version is refused; dbos options without the engine are usage errors.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { createServer, type Server, type Socket } from 'node:net';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { runNeo } from '../helpers/cli.js';
import { tempDir } from '../helpers/temp.js';
import {
  freePort,
  freshDatabase,
  query,
  runRow,
  startDb,
  startWorker,
  stopDb,
  stopWorker,
  waitFor,
  type TestDb,
  type Worker,
} from './dbos-helpers.js';

let db: TestDb | undefined;
const workers: Worker[] = [];

beforeAll(async () => {
  db = await startDb();
}, 120_000);
afterAll(() => stopDb(db), 60_000);
afterEach(async () => {
  await Promise.all(workers.splice(0).map(stopWorker));
});

const PLAN = `name: two
workspace: { isolation: inplace }
steps:
  - id: a
    run: echo a >> $DIR/log
  - id: b
    needs: [a]
    run: echo b >> $DIR/log
`;

async function project(plan = PLAN): Promise<{ dir: string; home: string }> {
  const dir = await tempDir('neo-dbos-proj-');
  await writeFile(join(dir, 'plan.yaml'), plan.replaceAll('$DIR', dir));
  return { dir, home: join(dir, '.home') };
}

/** The test server's processes: its postmaster and every process it started. */
function serverProcesses(server: TestDb): number[] {
  const postmaster = Number(readFileSync(join(server.dir, 'data', 'postmaster.pid'), 'utf8').split('\n')[0]);
  const children = readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .filter((pid) => parentOf(pid) === postmaster)
    .map(Number);
  return [postmaster, ...children];
}

function parentOf(pid: string): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
  } catch {
    return undefined; // gone meanwhile
  }
}

/** Every command that talks to the database, pointed at `url`. */
function commands(url: string): string[][] {
  const db = ['--database-url', url];
  return [
    ['flow', 'run', 'plan.yaml', '--engine', 'dbos', ...db],
    ['flow', 'run', 'plan.yaml', '--engine', 'dbos', '--detach', ...db],
    ['flow', 'list', '--engine', 'dbos', ...db],
    ['flow', 'show', '20260101-000000-abcdef', '--engine', 'dbos', ...db],
    ['flow', 'approve', '20260101-000000-abcdef', 'gate', '--decision', 'approve', '--engine', 'dbos', ...db],
    ['flow', 'cancel', '20260101-000000-abcdef', '--engine', 'dbos', ...db],
    ['worker', ...db],
  ];
}

describe('dbos engine: the database unreachable', () => {
  let silent: Server | undefined;
  const held: Socket[] = [];
  afterEach(async () => {
    for (const s of held.splice(0)) s.destroy();
    await new Promise((resolve) => (silent === undefined ? resolve(undefined) : silent.close(resolve)));
    silent = undefined;
  });

  it('refused or silent: every command fails within its bound with ENGINE_DB_UNREACHABLE, exit 9', async () => {
    const { dir, home } = await project();
    const closed = await freePort();
    // A server that accepts and never answers: a frozen Postgres, as far as a client can tell.
    silent = createServer((socket) => held.push(socket));
    await new Promise<void>((resolve) => silent!.listen(0, '127.0.0.1', resolve));
    const silentPort = (silent.address() as { port: number }).port;
    for (const port of [closed, silentPort]) {
      const url = `postgresql://neo:secret@127.0.0.1:${port}/postgres`;
      const results = await Promise.all(
        commands(url).map((args) => runNeo(args, { cwd: dir, env: { NEO_HOME: home }, timeout: 30_000 })),
      );
      for (const [i, r] of results.entries()) {
        expect({
          args: commands(url)[i]!.slice(0, 2),
          exit: r.exitCode,
          error: /ENGINE_DB_UNREACHABLE/.test(r.stderr),
        }).toEqual({
          args: commands(url)[i]!.slice(0, 2),
          exit: 9,
          error: true,
        });
        expect(r.stderr).not.toContain('secret');
      }
    }
  });

  it('no database named at all is a usage error saying how to name one', async () => {
    const { dir, home } = await project();
    const r = await runNeo(['flow', 'run', 'plan.yaml', '--engine', 'dbos'], { cwd: dir, env: { NEO_HOME: home } });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain('ENGINE_DB_UNSET');
    const local = await runNeo(['flow', 'run', 'plan.yaml', '--detach'], { cwd: dir, env: { NEO_HOME: home } });
    expect(local.exitCode).toBe(2);
    expect(local.stderr).toContain('CLI_ENGINE_OPTION');
  });
});

describe('dbos engine: runs', () => {
  it('a run enqueued twice under one id is one run, each step recorded and run once', async () => {
    const url = await freshDatabase(db!);
    const { dir, home } = await project();
    const runId = '20260101-000000-a1b2c3';
    const enqueue = () =>
      runNeo(['flow', 'run', 'plan.yaml', '--engine', 'dbos', '--database-url', url, '--run-id', runId, '--detach'], {
        cwd: dir,
        env: { NEO_HOME: home },
      });
    const [first, second] = [await enqueue(), await enqueue()];
    expect(first.stdout).toContain(`run ${runId} · flow two · enqueued (dbos)`);
    expect(second.stdout).toContain(`run ${runId} · flow two · already enqueued (dbos)`);
    workers.push(await startWorker(url, join(await tempDir('neo-dbos-home-'), 'worker'), 'w1', 2));
    // Following it (a third start of the same id) reports its end.
    const followed = await runNeo(
      ['flow', 'run', 'plan.yaml', '--engine', 'dbos', '--database-url', url, '--run-id', runId],
      {
        cwd: dir,
        env: { NEO_HOME: home },
      },
    );
    expect(followed.exitCode).toBe(0);
    expect(followed.stdout).toContain(`run ${runId} succeeded`);
    expect((await readFile(join(dir, 'log'), 'utf8')).trim().split('\n')).toEqual(['a', 'b']);
    expect(await query(url, `SELECT key FROM neo.step_results WHERE run_id = $1 ORDER BY key`, [runId])).toEqual([
      { key: 'a#1.1' },
      { key: 'b#1.1' },
    ]);
    const list = await runNeo(['flow', 'list', '--engine', 'dbos', '--database-url', url, '--json'], {
      env: { NEO_HOME: home },
    });
    expect(
      (JSON.parse(list.stdout) as Array<{ runId: string; status: string }>).map((r) => [r.runId, r.status]),
    ).toEqual([[runId, 'succeeded']]);
  });

  it('a step whose outcome was recorded before its events (a worker killed in between) is not run again', async () => {
    const url = await freshDatabase(db!);
    const { dir, home } = await project();
    const runId = '20260101-000000-d1e2f3';
    // The killed worker's trace: step a's outcome is in the record, no event of the run is.
    const enqueue = await runNeo(
      ['flow', 'run', 'plan.yaml', '--engine', 'dbos', '--database-url', url, '--run-id', runId, '--detach'],
      {
        cwd: dir,
        env: { NEO_HOME: home },
      },
    );
    expect(enqueue.exitCode).toBe(0);
    await query(url, `INSERT INTO neo.step_results (run_id, key, outcome, executor) VALUES ($1, 'a#1.1', $2, 'dead')`, [
      runId,
      JSON.stringify({ exec: 'old', status: 'succeeded', outputs: {} }),
    ]);
    workers.push(await startWorker(url, join(await tempDir('neo-dbos-home-'), 'worker'), 'w1'));
    await waitFor('the run to finish', async () =>
      (await runRow(url, runId))?.status === 'succeeded' ? true : undefined,
    );
    expect((await readFile(join(dir, 'log'), 'utf8')).trim().split('\n')).toEqual(['b']);
    expect(
      await query(url, `SELECT key, executor FROM neo.step_results WHERE run_id = $1 ORDER BY key`, [runId]),
    ).toEqual([
      { key: 'a#1.1', executor: 'dead' },
      { key: 'b#1.1', executor: 'w1' },
    ]);
  });

  it('PostgreSQL frozen mid-step (SIGSTOP, then SIGCONT): the run waits and goes on, nothing lost or run twice', async () => {
    const url = await freshDatabase(db!);
    const { dir, home } = await project(`name: frozen
workspace: { isolation: inplace }
steps:
  - id: a
    run: echo a >> $DIR/log; touch $DIR/in-a; sleep 1
  - id: b
    needs: [a]
    run: echo b >> $DIR/log
`);
    workers.push(await startWorker(url, join(await tempDir('neo-dbos-home-'), 'worker'), 'w1'));
    const run = await runNeo(
      ['flow', 'run', 'plan.yaml', '--engine', 'dbos', '--database-url', url, '--detach', '--json'],
      {
        cwd: dir,
        env: { NEO_HOME: home },
      },
    );
    const runId = (JSON.parse(run.stdout.split('\n')[0]!) as { runId: string }).runId;
    await waitFor('step a to run', () => readFile(join(dir, 'in-a')).then(() => true));
    const server = serverProcesses(db!);
    for (const pid of server) process.kill(pid, 'SIGSTOP');
    try {
      await new Promise((resolve) => setTimeout(resolve, 3_000));
    } finally {
      for (const pid of server) process.kill(pid, 'SIGCONT');
    }
    await waitFor('the run to finish', async () =>
      (await runRow(url, runId))?.status === 'succeeded' ? true : undefined,
    );
    expect((await readFile(join(dir, 'log'), 'utf8')).trim().split('\n')).toEqual(['a', 'b']);
    const seqs = await query<{ seq: number }>(url, `SELECT seq FROM neo.run_events WHERE run_id = $1 ORDER BY seq`, [
      runId,
    ]);
    expect(seqs.map((r) => r.seq)).toEqual(seqs.map((_, i) => i + 1));
  });

  it('`neo flow cancel` from another process stops a run waiting on its worker', async () => {
    const url = await freshDatabase(db!);
    const { dir, home } = await project(`name: waits
workspace: { isolation: inplace }
steps:
  - id: gate
    approval: { prompt: "Go?" }
  - id: after
    needs: [gate]
    run: echo after >> $DIR/log
`);
    workers.push(await startWorker(url, join(await tempDir('neo-dbos-home-'), 'worker'), 'w1'));
    const run = await runNeo(
      ['flow', 'run', 'plan.yaml', '--engine', 'dbos', '--database-url', url, '--detach', '--json'],
      {
        cwd: dir,
        env: { NEO_HOME: home },
      },
    );
    const runId = (JSON.parse(run.stdout.split('\n')[0]!) as { runId: string }).runId;
    await waitFor('the run to wait', async () => ((await runRow(url, runId))?.status === 'running' ? true : undefined));
    const cancel = await runNeo(['flow', 'cancel', runId, '--engine', 'dbos', '--database-url', url], {
      env: { NEO_HOME: home },
    });
    expect(cancel.exitCode).toBe(0);
    expect(cancel.stdout).toContain(`run ${runId}: cancelled`);
    await waitFor('the worker to let it go', async () => {
      const log = await readFile(join(workers[0]!.home, 'runs', runId, 'run.json'), 'utf8').catch(() => '');
      return /"status":\s*"interrupted"/.test(log) ? true : undefined;
    });
    const show = await runNeo(['flow', 'show', runId, '--engine', 'dbos', '--database-url', url, '--json'], {
      env: { NEO_HOME: home },
    });
    expect((JSON.parse(show.stdout) as { status: string }).status).toBe('cancelled');
    await expect(readFile(join(dir, 'log'), 'utf8')).rejects.toThrow();
  });

  it('a database holding neo tables of another schema version is refused, exit 9', async () => {
    const url = await freshDatabase(db!);
    await query(url, `CREATE SCHEMA neo; CREATE TABLE neo.meta (key text PRIMARY KEY, value text NOT NULL)`);
    await query(url, `INSERT INTO neo.meta VALUES ('schema_version', '99')`);
    const { home } = await project();
    const r = await runNeo(['flow', 'list', '--engine', 'dbos', '--database-url', url], { env: { NEO_HOME: home } });
    expect(r.exitCode).toBe(9);
    expect(r.stderr).toContain('ENGINE_DB_SCHEMA');
    expect(r.stderr).toContain('schema version 99');
  });
});
