/**
 * The dbos engine in the control plane and `neo flow resume`: `neo serve` with a database lists
 * and shows dbos runs beside the local ones (their engine named, their state from
 * neo.run_events), says so and goes on with the local runs when the database does not answer,
 * and with --supervise recovers a dead worker's run when no worker supervises; `neo flow resume
 * --engine dbos` puts a failed or cancelled run back on the queue, its succeeded steps kept.
 */
import { execa, type ResultPromise } from 'execa';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { NEO_BIN, runNeo } from '../helpers/cli.js';
import { tempDir } from '../helpers/temp.js';
import { openBrowser } from './browser.js';
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
const servers: ResultPromise[] = [];

beforeAll(async () => {
  db = await startDb();
}, 120_000);
afterAll(() => stopDb(db), 60_000);
afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.kill('SIGTERM');
    await server.catch(() => undefined);
  }
  await Promise.all(workers.splice(0).map(stopWorker));
});

/** Starts the built `neo serve` and reads the one URL it prints. */
async function serve(home: string, args: string[]) {
  const child = execa(process.execPath, [NEO_BIN, 'serve', '--port', '0', ...args], {
    env: { NEO_HOME: home, NO_COLOR: '1' },
    reject: false,
    buffer: false,
  });
  servers.push(child);
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      if (out.includes('\n')) resolve(out.trim());
    });
    void child.then((r) => reject(new Error(`neo serve exited ${r.exitCode}: ${stderr}`)));
  });
  const origin = url.slice(0, url.indexOf('/#token='));
  const token = url.slice(url.indexOf('#token=') + 7);
  const api = async (path: string, method = 'GET') => {
    const response = await fetch(`${origin}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${token}`,
        ...(method === 'POST' ? { 'content-type': 'application/json' } : {}),
      },
      ...(method === 'POST' ? { body: '{}' } : {}),
    });
    return { status: response.status, body: (await response.json()) as { ok: boolean; data?: any; error?: any } };
  };
  return { child, url, api, stderr: () => stderr };
}

async function project(plan: string): Promise<string> {
  const dir = await tempDir('neo-dbos-serve-');
  await writeFile(join(dir, 'plan.yaml'), plan.replaceAll('$DIR', dir));
  return dir;
}

async function enqueue(url: string, dir: string): Promise<string> {
  const r = await runNeo(
    ['flow', 'run', 'plan.yaml', '--engine', 'dbos', '--database-url', url, '--detach', '--json'],
    { cwd: dir, env: { NEO_HOME: join(dir, '.client-home') } },
  );
  expect(r.exitCode).toBe(0);
  return (JSON.parse(r.stdout.split('\n')[0]!) as { runId: string }).runId;
}

const finished = (url: string, runId: string) =>
  waitFor('the run to finish', async () => {
    const row = await runRow(url, runId);
    return row !== undefined && ['succeeded', 'failed'].includes(row.status) ? row : undefined;
  });

describe('neo serve with the dbos engine', () => {
  it(
    'lists and shows dbos runs beside local ones, and --supervise recovers a dead worker’s run',
    { timeout: 180_000 },
    async () => {
      const url = await freshDatabase(db!);
      const dir = await project(`name: slow
workspace: { isolation: inplace }
steps:
  - { id: one, run: echo one >> $DIR/log }
  - id: two
    needs: [one]
    run: if [ -e $DIR/in-two ]; then echo two-again >> $DIR/log; else touch $DIR/in-two; sleep 60; fi
`);
      const home = join(dir, '.serve-home');
      // A local run in the server's home.
      await writeFile(join(dir, 'local.yaml'), 'name: here\nsteps:\n  - { id: one, run: "true" }\n');
      expect((await runNeo(['flow', 'run', 'local.yaml'], { cwd: dir, env: { NEO_HOME: home } })).exitCode).toBe(0);
      const server = await serve(home, ['--database-url', url, '--supervise']);

      // Neither worker supervises (`--supervise` is accepted; the one killed had it): serve's supervisor must.
      const root = await tempDir('neo-dbos-workers-');
      const doomed = await startWorker(url, join(root, 'a'), 'wa', 1, ['--supervise']);
      workers.push(doomed);
      const runId = await enqueue(url, dir);
      await waitFor('step two to start', () =>
        readFile(join(dir, 'in-two')).then(
          () => true,
          () => undefined,
        ),
      );
      const live = await server.api('/api/flows/runs');
      expect(live.status).toBe(200);
      const runs = live.body.data.runs as Array<{ runId: string; engine: string; status: string; executor?: string }>;
      expect(runs.filter((r) => r.engine === 'local')).toHaveLength(1);
      expect(runs.find((r) => r.runId === runId)).toMatchObject({ engine: 'dbos', status: 'running', executor: 'wa' });
      expect(live.body.data.live).toContain(runId);
      expect(live.body.data.notices).toBeUndefined();

      const survivor = await startWorker(url, join(root, 'b'), 'wb', 1, ['--no-supervise']);
      workers.push(survivor);
      doomed.child.kill('SIGKILL');
      await doomed.child;
      workers.splice(workers.indexOf(doomed), 1);
      expect((await runNeo(['flow', 'list'], { env: { NEO_HOME: doomed.home } })).exitCode).toBe(0);
      const done = await finished(url, runId).catch((error: unknown) => {
        throw new Error(`${String(error)}; serve said: ${server.stderr()}`);
      });
      expect(done).toEqual({ status: 'succeeded', executor: 'wb' });
      expect(server.stderr()).toContain(`recovered run ${runId} from dead worker wa`);
      expect((await readFile(join(dir, 'log'), 'utf8')).trim().split('\n')).toEqual(['one', 'two-again']);

      // A run's view: its engine, its graph from the plan its worker compiled, its state and events.
      const detail = await server.api(`/api/flows/runs/${runId}`);
      expect(detail.status).toBe(200);
      expect(detail.body.data.engine).toBe('dbos');
      expect(detail.body.data.record).toMatchObject({ runId, flow: 'slow', status: 'succeeded', engine: 'dbos' });
      expect(detail.body.data.steps.map((s: { id: string }) => s.id)).toEqual(['one', 'two']);
      expect(detail.body.data.graph.edges).toEqual([expect.objectContaining({ from: 'one', to: 'two' })]);
      expect(detail.body.data.state.steps.two).toMatchObject({ status: 'succeeded', executions: 2 });
      const events = await server.api(`/api/flows/runs/${runId}/events?afterSeq=1`);
      expect(events.status).toBe(200);
      const types = (events.body.data.events as Array<{ seq: number; type: string }>).map((e) => e.type);
      expect(types).toContain('run.resumed');
      expect(types.at(-1)).toBe('run.finished');
      expect((await server.api('/api/flows/runs/20260101-000000-abcdef')).status).toBe(404);
      // It is steered from the CLI: the page's cancel and resume say how.
      for (const verb of ['cancel', 'resume']) {
        const refused = await server.api(`/api/flows/runs/${runId}/${verb}`, 'POST');
        expect(refused.status).toBe(409);
        expect(refused.body.error).toMatchObject({
          code: 'SERVER_DBOS_RUN',
          hint: `${verb} it with \`neo flow ${verb} ${runId} --engine dbos\``,
        });
      }

      // In chromium: the runs list names each run's engine; the dbos run's page draws its graph
      // from the record and offers no Cancel (it is steered from the CLI).
      const browser = await openBrowser();
      try {
        const { page } = browser;
        await page.goto(server.url.replace('#', 'flows#'));
        const row = page.locator('tr[data-run]', { hasText: 'slow' });
        await row.getByTestId('engine').getByText('dbos').waitFor();
        await page.locator('tr[data-run]', { hasText: 'here' }).getByTestId('engine').getByText('local').waitFor();
        await row.getByRole('link').click();
        await page.getByTestId('run-engine').getByText('engine dbos').waitFor();
        await page.getByTestId('graph').locator('g[data-step="two"][data-status="succeeded"]').waitFor();
        expect(await page.getByRole('button', { name: 'Cancel' }).count()).toBe(0);
      } finally {
        await browser.close();
      }
    },
  );

  it('a database that does not answer: the local runs and a notice, quickly, and serve stays up', async () => {
    const dir = await project('name: local\nsteps:\n  - { id: one, run: "true" }\n');
    const home = join(dir, '.serve-home');
    expect((await runNeo(['flow', 'run', 'plan.yaml'], { cwd: dir, env: { NEO_HOME: home } })).exitCode).toBe(0);
    const nowhere = `postgresql://neo:secret@127.0.0.1:${await freePort()}/postgres`;
    const server = await serve(home, ['--database-url', nowhere]);
    for (let i = 0; i < 2; i++) {
      const started = Date.now();
      const list = await server.api('/api/flows/runs');
      expect(Date.now() - started).toBeLessThan(8_000);
      expect(list.status).toBe(200);
      expect(list.body.data.runs.map((r: { engine: string }) => r.engine)).toEqual(['local']);
      expect(list.body.data.notices).toEqual([expect.stringContaining('dbos runs are not shown')]);
      expect(list.body.data.notices[0]).not.toContain('secret');
    }
    const missing = await server.api('/api/flows/runs/20260101-000000-abcdef');
    expect(missing.status).toBe(503);
    expect(missing.body.error.code).toBe('ENGINE_DB_UNREACHABLE');
    expect(server.child.exitCode).toBeNull();
  });
});

describe('neo flow resume --engine dbos', () => {
  it('a failed run goes back on the queue: the succeeded step is kept, the failed one runs again', async () => {
    const url = await freshDatabase(db!);
    const dir = await project(`name: flaky
workspace: { isolation: inplace }
steps:
  - { id: one, run: echo one >> $DIR/log }
  - { id: two, needs: [one], run: echo two >> $DIR/log; test -e $DIR/fixed }
`);
    const root = await tempDir('neo-dbos-workers-');
    workers.push(await startWorker(url, join(root, 'a'), 'wa'));
    const runId = await enqueue(url, dir);
    expect((await finished(url, runId)).status).toBe('failed');
    const env = { NEO_HOME: join(dir, '.client-home') };
    const refused = await runNeo(
      ['flow', 'resume', runId, '--engine', 'dbos', '--database-url', url, '--rerun', 'one'],
      {
        env,
      },
    );
    expect(refused.exitCode).toBe(2);
    expect(refused.stderr).toContain('CLI_ENGINE_OPTION');

    await writeFile(join(dir, 'fixed'), '');
    const resumed = await runNeo(['flow', 'resume', runId, '--engine', 'dbos', '--database-url', url], { env });
    expect(resumed.stderr).toBe('');
    expect(resumed.exitCode).toBe(0);
    expect(resumed.stdout).toContain(`run ${runId} · flow flaky · back on the queue (dbos)`);
    expect(resumed.stdout).toContain(`run ${runId} succeeded`);
    expect((await readFile(join(dir, 'log'), 'utf8')).trim().split('\n')).toEqual(['one', 'two', 'two']);
    const steps = await query<{ key: string; status: string }>(
      url,
      `SELECT key, outcome->>'status' AS status FROM neo.step_results WHERE run_id = $1 ORDER BY at`,
      [runId],
    );
    expect(steps).toEqual([
      { key: 'one#1.1', status: 'succeeded' },
      { key: 'two#1.1', status: 'succeeded' },
    ]);
    const again = await runNeo(['flow', 'resume', runId, '--engine', 'dbos', '--database-url', url], { env });
    expect(again.exitCode).toBe(2);
    expect(again.stderr).toContain('FLOW_RUN_FINISHED');
  });

  it('a cancelled run goes back on the queue and finishes, its finished step kept', async () => {
    const url = await freshDatabase(db!);
    const dir = await project(`name: stopped
workspace: { isolation: inplace }
steps:
  - { id: one, run: echo one >> $DIR/log }
  - id: slow
    needs: [one]
    run: if [ -e $DIR/in-slow ]; then echo slow-again >> $DIR/log; else touch $DIR/in-slow; sleep 60; fi
`);
    const root = await tempDir('neo-dbos-workers-');
    const worker = await startWorker(url, join(root, 'a'), 'wa');
    workers.push(worker);
    const runId = await enqueue(url, dir);
    await waitFor('step slow to start', () =>
      readFile(join(dir, 'in-slow')).then(
        () => true,
        () => undefined,
      ),
    );
    const env = { NEO_HOME: join(dir, '.client-home') };
    // Resumed at once: the worker may not have seen the cancel yet (engine-dbos-resume makes sure of it).
    const cancel = await runNeo(['flow', 'cancel', runId, '--engine', 'dbos', '--database-url', url], { env });
    expect(cancel.exitCode).toBe(0);
    const live = await runNeo(['flow', 'resume', runId, '--engine', 'dbos', '--database-url', url, '--detach'], {
      env,
    });
    expect(live.exitCode).toBe(0);
    expect(live.stdout).toContain('back on the queue');
    expect(await finished(url, runId)).toEqual({ status: 'succeeded', executor: 'wa' });
    expect((await readFile(join(dir, 'log'), 'utf8')).trim().split('\n')).toEqual(['one', 'slow-again']);
  });
});
