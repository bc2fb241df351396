/**
 * The dbos engine under load: 200 runs of 5 `run: "true"` steps enqueued at once, driven by two
 * `neo worker` processes at concurrency 4. Every run finishes, none is lost, and each step is
 * in each run's record exactly once (executions are at least once; the record keeps the first
 * outcome per step key), with every run's events gapless.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { DbosClient } from '../../engine/flow/engines/dbos/client.js';
import { tempDir } from '../helpers/temp.js';
import { freshDatabase, query, startWorker, waitFor, useDbos } from './dbos-helpers.js';

/** 200 as the issue asks; NEO_TEST_DBOS_RUNS lowers it on a machine shared with other work. */
const RUNS = Number(process.env.NEO_TEST_DBOS_RUNS ?? 200);
const STEPS = 5;

const dbos = useDbos();
const { workers } = dbos;

it(
  `${RUNS} runs of ${STEPS} steps across 2 workers at concurrency 4: all finish, each step recorded once`,
  { timeout: 240_000 },
  async () => {
    const url = await freshDatabase(dbos.db);
    const dir = await tempDir('neo-dbos-scale-');
    const steps = Array.from(
      { length: STEPS },
      (_, i) => `  - { id: s${i}, run: "true"${i > 0 ? `, needs: [s${i - 1}]` : ''} }`,
    );
    await writeFile(
      join(dir, 'plan.yaml'),
      `name: five\nworkspace: { isolation: copy }\nsteps:\n${steps.join('\n')}\n`,
    );
    const client = new DbosClient(url);
    const ids = Array.from({ length: RUNS }, (_, i) => `20260101-000000-${i.toString(16).padStart(6, '0')}`);
    try {
      await client.ready();
      for (let i = 0; i < ids.length; i += 25)
        await Promise.all(
          ids
            .slice(i, i + 25)
            .map((runId) =>
              client.start({ runId, flow: 'five', planFile: join(dir, 'plan.yaml'), cwd: dir, inputs: {} }),
            ),
        );
    } finally {
      await client.close();
    }
    // The workers' homes are outside the project: a run's workspace is a copy of the project.
    const homes = await tempDir('neo-dbos-homes-');
    workers.push(
      await startWorker(url, join(homes, 'w1'), 'w1', 4),
      await startWorker(url, join(homes, 'w2'), 'w2', 4),
    );
    await waitFor(
      'every run to finish',
      async () => {
        const [row] = await query<{ n: string }>(
          url,
          `SELECT count(*) AS n FROM neo.runs WHERE status NOT IN ('queued', 'running')`,
        );
        return Number(row!.n) === RUNS ? true : undefined;
      },
      200_000,
    );
    const statuses = await query<{ status: string; n: string }>(
      url,
      `SELECT status, count(*) AS n FROM neo.runs GROUP BY status`,
    );
    expect(statuses.map((s) => [s.status, Number(s.n)])).toEqual([['succeeded', RUNS]]);
    // Each step once per run in the recorded result, and each run's events 1, 2, 3 … with one end.
    const completed = await query<{ n: string }>(
      url,
      `SELECT count(*) AS n FROM neo.run_events WHERE event->>'type' = 'step.completed' GROUP BY run_id, event->>'step'`,
    );
    expect(completed).toHaveLength(RUNS * STEPS);
    expect(completed.every((c) => Number(c.n) === 1)).toBe(true);
    const [results] = await query<{ n: string }>(url, `SELECT count(*) AS n FROM neo.step_results`);
    expect(Number(results!.n)).toBe(RUNS * STEPS);
    const gaps = await query<{ run_id: string }>(
      url,
      `SELECT run_id FROM neo.run_events GROUP BY run_id HAVING max(seq) <> count(*) OR min(seq) <> 1
       OR count(*) FILTER (WHERE event->>'type' = 'run.finished') <> 1`,
    );
    expect(gaps).toEqual([]);
    // Both workers took a share.
    const shares = await query<{ executor: string }>(
      url,
      `SELECT DISTINCT executor FROM neo.step_results ORDER BY executor`,
    );
    expect(shares.map((s) => s.executor)).toEqual(['w1', 'w2']);
  },
);
