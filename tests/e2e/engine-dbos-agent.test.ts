/**
 * An agent step on the dbos engine: examples/quickstart (a script-backend agent fixes a failing
 * test, its gate judges it) enqueued with `--engine dbos` and driven by a `neo worker`. The
 * session lives on the worker (its NEO_HOME's session store), the step's outcome and the run's
 * events reach PostgreSQL, and a client with a NEO_HOME of its own shows the run from the record.
 */
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runNeo } from '../helpers/cli.js';
import { tempDir } from '../helpers/temp.js';
import { freshDatabase, query, recordedEvents, startWorker, useDbos } from './dbos-helpers.js';
import { git, repoWithExamples } from './flow-helpers.js';

const dbos = useDbos();
const { workers } = dbos;

describe('dbos engine: an agent step', () => {
  it('runs its session on the worker, passes its gate, and is shown from the record by any machine', async () => {
    const url = await freshDatabase(dbos.db);
    const { repo, home } = await repoWithExamples('quickstart');
    const worker = await startWorker(url, await tempDir('neo-dbos-agent-worker-'), 'wa');
    workers.push(worker);

    const run = await runNeo(['flow', 'run', 'quickstart/plan.yaml', '--engine', 'dbos', '--database-url', url], {
      cwd: repo,
      env: { NEO_HOME: home },
      timeout: 120_000,
    });
    expect(run.stderr).toBe('');
    expect(run.exitCode).toBe(0);
    const runId = /run (\S+) · flow quickstart · enqueued/.exec(run.stdout)![1]!;
    expect(run.stdout).toContain(`run ${runId} succeeded`);

    // The agent's fix is on the run's branch; the user's checkout is as it was.
    expect(await git(repo, 'show', `neo/${runId}:quickstart/src/sum.js`)).toContain('let total = 0;');
    expect(await git(repo, 'status', '--porcelain')).toBe('');

    // The session is the worker's: its store holds it, the client's home has none.
    expect((await readdir(join(worker.home, 'code-sessions'))).length).toBeGreaterThan(0);
    expect(await readdir(join(home, 'code-sessions')).catch(() => [])).toEqual([]);

    // The record: the step's outcome once, its gate's two attempts, the run finished.
    const steps = await query<{ key: string }>(url, `SELECT key FROM neo.step_results WHERE run_id = $1`, [runId]);
    expect(steps).toEqual([{ key: 'fix#1.1' }]);
    const events = await recordedEvents(url, runId);
    expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i + 1));
    expect(events.find((e) => e.type === 'step.completed')).toMatchObject({ step: 'fix' });
    expect(events.at(-1)!.type).toBe('run.finished');

    const elsewhere = { NEO_HOME: await tempDir('neo-dbos-agent-client-') };
    const show = await runNeo(['flow', 'show', runId, '--engine', 'dbos', '--database-url', url], { env: elsewhere });
    expect(show.exitCode).toBe(0);
    expect(show.stdout).toMatch(/succeeded \(dbos, worker wa\)/);
    expect(show.stdout).toMatch(/fix\s+succeeded/);

    // The step's session, copied by the worker: shown from another home, the same as on the worker.
    const [sessionId] = await readdir(join(worker.home, 'code-sessions'));
    expect(show.stdout).toMatch(new RegExp(`session ${sessionId} · ended · worker wa · \\d+ events`));
    const there = await runNeo(['sessions', 'show', sessionId!, '--events', '--json'], {
      env: { NEO_HOME: worker.home },
    });
    const copied = await runNeo(
      ['sessions', 'show', sessionId!.slice(0, 12), '--events', '--json', '--engine', 'dbos', '--database-url', url],
      { env: elsewhere },
    );
    expect(copied.stderr).toBe('');
    expect(copied.exitCode).toBe(0);
    const original = JSON.parse(there.stdout) as { record: unknown; events: unknown[] };
    const mirrored = JSON.parse(copied.stdout) as typeof original & { dbos: unknown };
    expect(mirrored.dbos).toEqual({ runId, step: 'fix', worker: 'wa' });
    expect(mirrored.record).toEqual(original.record);
    expect(mirrored.events).toEqual(original.events);
    expect(original.events.length).toBeGreaterThan(3);
    const text = await runNeo(['sessions', 'show', sessionId!, '--engine', 'dbos', '--database-url', url], {
      env: elsewhere,
    });
    expect(text.stdout).toContain(`dbos run ${runId} · step fix · worker wa`);
    const none = await runNeo(['sessions', 'show', 'cs_0000', '--engine', 'dbos', '--database-url', url], {
      env: elsewhere,
    });
    expect(none.exitCode).toBe(2);
    expect(none.stderr).toContain('SESSION_NOT_FOUND');
    expect(await readFile(join(repo, 'quickstart/src/sum.js'), 'utf8')).toContain('let total;');
  });
});
