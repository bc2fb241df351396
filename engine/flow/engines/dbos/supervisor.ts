/**
 * The supervisor: notices dead executors (a heartbeat in neo.workers older than
 * {@link DEAD_AFTER_MS}) and moves their PENDING workflows to the `neo-runs` queue for a live
 * worker to take over — what DBOS Conductor does commercially, done with the open-source SDK.
 * Every `neo worker` runs it (off with `--no-supervise`); `neo serve --supervise` runs it too,
 * through a DBOS client, so a machine with no worker can watch over the workers. One pass at a
 * time across all of them (a PostgreSQL advisory lock).
 */
import type pg from 'pg';
import { bounded, openPool } from './database.js';
import { APP_NAME, QUEUE } from './names.js';

/** A heartbeat older than this marks its executor dead. */
export const DEAD_AFTER_MS = 4_000;
/** How often a supervisor looks. */
export const SUPERVISE_MS = 1_000;

/** What a pass needs of DBOS: a dead executor's PENDING workflows, and moving one to the queue. */
export interface Workflows {
  pending(executorId: string): Promise<string[]>;
  requeue(workflowId: string): Promise<void>;
}

/**
 * One pass: every executor (but `self`) whose heartbeat stopped has its PENDING workflows
 * re-enqueued, then its row goes. A workflow is only ever moved while the dead executor still
 * holds it (`pending` lists that executor's).
 */
export async function superviseOnce(
  pool: pg.Pool,
  self: string,
  workflows: Workflows,
  log: (line: string) => void,
): Promise<void> {
  const client = await pool.connect();
  try {
    const { rows } = await client.query<{ locked: boolean }>(
      `SELECT pg_try_advisory_lock(hashtext('neo-supervisor')) AS locked`,
    );
    if (rows[0]?.locked !== true) return;
    try {
      const dead = await client.query<{ executor_id: string }>(
        `SELECT executor_id FROM neo.workers WHERE executor_id <> $1 AND beat_at < now() - make_interval(secs => $2)`,
        [self, DEAD_AFTER_MS / 1000],
      );
      for (const { executor_id: id } of dead.rows) {
        for (const workflowId of await workflows.pending(id)) {
          await workflows.requeue(workflowId);
          log(`recovered run ${workflowId} from dead worker ${id}`);
        }
        await client.query(`DELETE FROM neo.workers WHERE executor_id = $1`, [id]);
      }
    } finally {
      await client.query(`SELECT pg_advisory_unlock(hashtext('neo-supervisor'))`).catch(() => undefined);
    }
  } finally {
    client.release();
  }
}

/**
 * `neo serve --supervise`: the supervisor on its own, through a DBOS client (no executor of its
 * own, so it takes no runs). A failing pass (the database down) is logged once, then again only
 * when the failure changes, and the next pass tries again.
 */
export function startSupervisor(url: string, log: (line: string) => void): { close(): Promise<void> } {
  const pool = openPool(url, 2);
  const client = import('@dbos-inc/dbos-sdk').then((sdk) =>
    sdk.DBOSClient.create({ systemDatabaseUrl: url, applicationName: APP_NAME }),
  );
  void client.catch(() => undefined);
  const workflows: Workflows = {
    pending: async (id) =>
      (await (await client).listWorkflows({ status: 'PENDING', executorId: id })).map((w) => w.workflowID),
    requeue: async (id) => {
      await (await client).resumeWorkflow(id, { queueName: QUEUE });
    },
  };
  let failing: string | undefined;
  let pass: Promise<void> | undefined;
  const timer = setInterval(() => {
    if (pass !== undefined) return;
    pass = bounded(url, 10_000, () => superviseOnce(pool, '', workflows, log))
      .then(() => {
        if (failing !== undefined) log('supervisor: the database answers again');
        failing = undefined;
      })
      .catch((error: unknown) => {
        // No neo tables yet (no worker has started on this database): nothing to watch over.
        if ((error as { code?: string }).code === '42P01') return;
        const why = error instanceof Error ? error.message : String(error);
        if (why !== failing) log(`supervisor: ${why}`);
        failing = why;
      })
      .finally(() => (pass = undefined));
  }, SUPERVISE_MS);
  return {
    async close() {
      clearInterval(timer);
      await pass;
      await bounded(url, 5_000, async () => (await client).destroy()).catch(() => undefined);
      await pool.end().catch(() => undefined);
    },
  };
}
