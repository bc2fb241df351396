/**
 * The dbos engine across worker deaths: two `neo worker` processes (own NEO_HOMEs, as on two
 * machines) on one embedded PostgreSQL. A worker killed -9 mid-step: the supervisor of the
 * live one recovers its run, the finished step is not run again, the killed step runs again on
 * the live worker, and the run's record is gapless. An approval's wait survives a kill and is
 * answered by `neo flow approve` from a third process.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runNeo } from '../helpers/cli.js';
import { tempDir } from '../helpers/temp.js';
import {
  freshDatabase,
  query,
  recordedEvents,
  runRow,
  startWorker,
  waitFor,
  type Worker,
  useDbos,
} from './dbos-helpers.js';

const dbos = useDbos();
const { workers } = dbos;

async function project(plan: string): Promise<{ dir: string; home: string }> {
  const dir = await tempDir('neo-dbos-proj-');
  await writeFile(join(dir, 'plan.yaml'), plan.replaceAll('$DIR', dir));
  return { dir, home: join(dir, '.client-home') };
}

async function enqueue(url: string, dir: string, home: string): Promise<string> {
  const r = await runNeo(
    ['flow', 'run', 'plan.yaml', '--engine', 'dbos', '--database-url', url, '--detach', '--json'],
    {
      cwd: dir,
      env: { NEO_HOME: home },
    },
  );
  expect(r.stderr).toBe('');
  expect(r.exitCode).toBe(0);
  return (JSON.parse(r.stdout.split('\n')[0]!) as { runId: string }).runId;
}

/** After a kill -9: the dead worker's local copy is settled and its orphans swept, as any reader does. */
async function settleDead(worker: Worker): Promise<void> {
  worker.child.kill('SIGKILL');
  await worker.child;
  const list = await runNeo(['flow', 'list'], { env: { NEO_HOME: worker.home } });
  expect(list.exitCode).toBe(0);
}

const exists = (path: string) =>
  readFile(path).then(
    () => true,
    () => undefined,
  );

describe('dbos engine: a worker killed -9', () => {
  // The first attempt of step two waits long enough to be killed however loaded the machine is
  // (it failed when the kill came after a 2 s sleep had ended); the re-run on the survivor does not wait.
  it('mid-step: the finished step is kept, the killed one runs again on the live worker, the record is gapless', async () => {
    const url = await freshDatabase(dbos.db);
    const { dir, home } = await project(`name: three
workspace: { isolation: inplace }
steps:
  - id: one
    run: echo one >> $DIR/log
  - id: two
    needs: [one]
    run: echo two >> $DIR/log; if [ ! -e $DIR/in-two ]; then touch $DIR/in-two; sleep 60; fi
  - id: three
    needs: [two]
    run: echo three >> $DIR/log
`);
    const root = await tempDir('neo-dbos-workers-');
    workers.push(await startWorker(url, join(root, 'a'), 'wa'), await startWorker(url, join(root, 'b'), 'wb'));
    const runId = await enqueue(url, dir, home);
    await waitFor('step two to start', () => exists(join(dir, 'in-two')));
    const owner = (await runRow(url, runId))!.executor;
    const victim = workers.find((w) => w.id === owner)!;
    const survivor = workers.find((w) => w.id !== owner)!;
    await settleDead(victim);
    workers.splice(workers.indexOf(victim), 1);

    const done = await waitFor('the run to finish', async () => {
      const row = await runRow(url, runId);
      return row !== undefined && ['succeeded', 'failed'].includes(row.status) ? row : undefined;
    });
    expect(done).toEqual({ status: 'succeeded', executor: survivor.id });
    expect((await readFile(join(dir, 'log'), 'utf8')).trim().split('\n')).toEqual(['one', 'two', 'two', 'three']);
    const steps = await query<{ key: string; executor: string }>(
      url,
      `SELECT key, executor FROM neo.step_results WHERE run_id = $1 ORDER BY at`,
      [runId],
    );
    expect(steps).toEqual([
      { key: 'one#1.1', executor: victim.id },
      { key: 'two#1.1', executor: survivor.id },
      { key: 'three#1.1', executor: survivor.id },
    ]);
    const events = await recordedEvents(url, runId);
    expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i + 1));
    expect(events.filter((e) => e.type === 'run.resumed')).toHaveLength(1);
    expect(events.filter((e) => e.type === 'step.started').map((e) => e.step)).toEqual(['one', 'two', 'two', 'three']);
    expect(events.at(-1)!.type).toBe('run.finished');

    // Any machine shows it: a client with a NEO_HOME of its own.
    const show = await runNeo(
      ['flow', 'show', runId.slice(0, 18), '--engine', 'dbos', '--database-url', url, '--json'],
      {
        env: { NEO_HOME: home },
      },
    );
    expect(show.exitCode).toBe(0);
    const shown = JSON.parse(show.stdout) as {
      status: string;
      executor: string;
      steps: Array<{ id: string; status: string }>;
    };
    expect(shown.status).toBe('succeeded');
    expect(shown.executor).toBe(survivor.id);
    expect(shown.steps.map((s) => `${s.id}:${s.status}`)).toEqual([
      'one:succeeded',
      'two:succeeded',
      'three:succeeded',
    ]);
  });

  it('waiting for an approval: another worker takes the wait over and `neo flow approve` from a third process answers it', async () => {
    const url = await freshDatabase(dbos.db);
    const { dir, home } = await project(`name: gated
workspace: { isolation: inplace }
steps:
  - id: prepare
    run: echo prepare >> $DIR/log
  - id: gate
    needs: [prepare]
    approval: { prompt: "Ship it?" }
  - id: ship
    needs: [gate]
    run: echo ship >> $DIR/log
`);
    const root = await tempDir('neo-dbos-workers-');
    const first = await startWorker(url, join(root, 'a'), 'wa');
    workers.push(first);
    const runId = await enqueue(url, dir, home);
    const gateStarted = async (n: number) =>
      (await recordedEvents(url, runId)).filter((e) => e.type === 'step.started' && e.step === 'gate').length >= n
        ? true
        : undefined;
    await waitFor('the approval to wait', () => gateStarted(1));
    await settleDead(first);
    workers.splice(0);
    workers.push(await startWorker(url, join(root, 'b'), 'wb'));
    await waitFor('the other worker to take the wait over', () => gateStarted(2));
    expect((await runRow(url, runId))!.executor).toBe('wb');

    const approve = await runNeo(
      ['flow', 'approve', runId, 'gate', '--decision', 'approve', '--engine', 'dbos', '--database-url', url],
      { env: { NEO_HOME: join(root, 'third') } },
    );
    expect(approve.stderr).toBe('');
    expect(approve.exitCode).toBe(0);
    const again = await runNeo(
      ['flow', 'approve', runId, 'gate', '--decision', 'reject', '--engine', 'dbos', '--database-url', url],
      { env: { NEO_HOME: join(root, 'third') } },
    );
    expect(again.exitCode).toBe(2);
    expect(again.stderr).toContain('FLOW_APPROVAL_ANSWERED');

    const done = await waitFor('the run to finish', async () => {
      const row = await runRow(url, runId);
      return row !== undefined && row.status !== 'running' && row.status !== 'queued' ? row : undefined;
    });
    expect(done.status).toBe('succeeded');
    expect((await readFile(join(dir, 'log'), 'utf8')).trim().split('\n')).toEqual(['prepare', 'ship']);
    const completed = await query<{ event: { outputs?: { decision?: string; by?: string } } }>(
      url,
      `SELECT event FROM neo.run_events WHERE run_id = $1 AND event->>'type' = 'step.completed' AND event->>'step' = 'gate'`,
      [runId],
    );
    expect(completed).toHaveLength(1);
    expect(completed[0]!.event.outputs?.decision).toBe('approve');
    expect(completed[0]!.event.outputs?.by).toMatch(/^cli \(/);
  });

  it('a retried approval asks again: its second asking waits for a new answer instead of taking the first', async () => {
    const url = await freshDatabase(dbos.db);
    const { dir, home } = await project(`name: retried
workspace: { isolation: inplace }
steps:
  - id: gate
    retry: { attempts: 2, backoff: 1s, on: any }
    approval:
      prompt: Ship it?
      decisions: [ { id: approve }, { id: reject, fail: true } ]
`);
    const root = await tempDir('neo-dbos-workers-');
    workers.push(await startWorker(url, join(root, 'a'), 'wa'));
    const runId = await enqueue(url, dir, home);
    const approve = (decision: string) =>
      runNeo(['flow', 'approve', runId, 'gate', '--decision', decision, '--engine', 'dbos', '--database-url', url], {
        env: { NEO_HOME: join(root, 'third') },
      });
    const started = async (n: number) =>
      (await recordedEvents(url, runId)).filter((e) => e.type === 'step.started').length >= n ? true : undefined;
    await waitFor('the first asking', () => started(1));
    expect((await approve('reject')).exitCode).toBe(0);
    await waitFor('the second asking', () => started(2));
    // It waits: nothing completed the step, and the new answer is taken.
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect((await recordedEvents(url, runId)).filter((e) => e.type === 'step.completed')).toEqual([]);
    const second = await approve('approve');
    expect(second.stderr).toBe('');
    expect(second.exitCode).toBe(0);
    const done = await waitFor('the run to finish', async () => {
      const row = await runRow(url, runId);
      return row !== undefined && row.status !== 'running' && row.status !== 'queued' ? row : undefined;
    });
    expect(done.status).toBe('succeeded');
  });
});
