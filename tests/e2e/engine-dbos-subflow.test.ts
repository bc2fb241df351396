/**
 * Sub-flows of a dbos run: a `flow:` step runs its sub-flow as its own run, kept in PostgreSQL
 * like its parent — its row in neo.runs links the parent run and step, its events are mirrored
 * under its own id, its steps are recorded under it — so any machine shows it, and a worker
 * killed -9 in the middle of the sub-flow hands it over without its finished steps running again.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { runNeo } from '../helpers/cli.js';
import { tempDir } from '../helpers/temp.js';
import { freshDatabase, query, recordedEvents, runRow, startWorker, waitFor, useDbos } from './dbos-helpers.js';

const dbos = useDbos();
const { workers } = dbos;

const exists = (path: string) =>
  readFile(path).then(
    () => true,
    () => undefined,
  );

it('a sub-flow is kept in PostgreSQL, shown from any machine, and a kill -9 mid-sub-flow re-runs only its unfinished step', async () => {
  const url = await freshDatabase(dbos.db);
  const dir = await tempDir('neo-dbos-sub-');
  await writeFile(
    join(dir, 'plan.yaml'),
    `name: parent
workspace: { isolation: inplace }
steps:
  - { id: one, run: echo one >> ${dir}/log }
  - { id: review, flow: child.flow.yaml, needs: [one] }
  - { id: last, run: echo last >> ${dir}/log, needs: [review] }
`,
  );
  // b sleeps on its first execution (the worker is killed there) and finishes at once on the next.
  await writeFile(
    join(dir, 'child.flow.yaml'),
    `name: child
steps:
  - { id: a, run: echo a >> ${dir}/log }
  - id: b
    needs: [a]
    run: if [ -e ${dir}/in-b ]; then echo b-again >> ${dir}/log; else touch ${dir}/in-b; sleep 60; fi
`,
  );
  const home = join(dir, '.client-home');
  const root = await tempDir('neo-dbos-workers-');
  workers.push(await startWorker(url, join(root, 'a'), 'wa'), await startWorker(url, join(root, 'b'), 'wb'));
  const run = await runNeo(
    ['flow', 'run', 'plan.yaml', '--engine', 'dbos', '--database-url', url, '--detach', '--json'],
    { cwd: dir, env: { NEO_HOME: home } },
  );
  expect(run.exitCode).toBe(0);
  const runId = (JSON.parse(run.stdout.split('\n')[0]!) as { runId: string }).runId;
  const childId = `${runId}.review.1-1`;

  await waitFor('the sub-flow step b to start', () => exists(join(dir, 'in-b')));
  // While the sub-flow runs, its events are in PostgreSQL already (mirrored as they happen).
  await waitFor('the sub-flow to be recorded', async () =>
    (await recordedEvents(url, childId)).some((e) => e.type === 'step.started' && e.step === 'b') ? true : undefined,
  );
  const owner = (await runRow(url, runId))!.executor;
  const victim = workers.find((w) => w.id === owner)!;
  const survivor = workers.find((w) => w.id !== owner)!;
  victim.child.kill('SIGKILL');
  await victim.child;
  // The dead worker's local copies are settled as any reader of its home does.
  expect((await runNeo(['flow', 'list'], { env: { NEO_HOME: victim.home } })).exitCode).toBe(0);
  workers.splice(workers.indexOf(victim), 1);

  const done = await waitFor('the run to finish', async () => {
    const row = await runRow(url, runId);
    return row !== undefined && ['succeeded', 'failed'].includes(row.status) ? row : undefined;
  });
  expect(done).toEqual({ status: 'succeeded', executor: survivor.id });
  // a ran once (kept from the dead worker's record), b ran again on the survivor.
  expect((await readFile(join(dir, 'log'), 'utf8')).trim().split('\n')).toEqual(['one', 'a', 'b-again', 'last']);
  const childSteps = await query<{ key: string; executor: string }>(
    url,
    `SELECT key, executor FROM neo.step_results WHERE run_id = $1 ORDER BY at`,
    [childId],
  );
  expect(childSteps).toEqual([
    { key: 'a#1.1', executor: victim.id },
    { key: 'b#1.1', executor: survivor.id },
  ]);
  const childEvents = await recordedEvents(url, childId);
  expect(childEvents.map((e) => e.seq)).toEqual(childEvents.map((_, i) => i + 1));
  expect(childEvents.filter((e) => e.type === 'step.started').map((e) => e.step)).toEqual(['a', 'b', 'b']);
  expect(childEvents.at(-1)!.type).toBe('run.finished');

  // Any machine shows the sub-flow, linked both ways (a client with a NEO_HOME of its own).
  const env = { NEO_HOME: join(dir, '.other-home') };
  const child = await runNeo(['flow', 'show', childId, '--engine', 'dbos', '--database-url', url, '--json'], { env });
  expect(child.exitCode).toBe(0);
  const shownChild = JSON.parse(child.stdout) as {
    status: string;
    parent: { runId: string; step: string };
    steps: Array<{ id: string; status: string }>;
  };
  expect(shownChild.status).toBe('succeeded');
  expect(shownChild.parent).toEqual({ runId, step: 'review' });
  expect(shownChild.steps.map((s) => `${s.id}:${s.status}`)).toEqual(['a:succeeded', 'b:succeeded']);
  const parent = await runNeo(['flow', 'show', runId, '--engine', 'dbos', '--database-url', url], { env });
  expect(parent.exitCode).toBe(0);
  expect(parent.stdout).toContain(`↳ review: sub-flow run ${childId} · child · succeeded`);
  const text = await runNeo(['flow', 'show', childId, '--engine', 'dbos', '--database-url', url], { env });
  expect(text.stdout).toContain(`sub-flow of ${runId} (review)`);
});
