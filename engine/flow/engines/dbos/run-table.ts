/**
 * A dbos run's record in PostgreSQL, readable from any machine: its request and status
 * (neo.runs), its events in seq order (neo.run_events: the same RunEvents a local run writes to
 * events.jsonl, mirrored by the worker that drives it), each step's recorded outcome
 * (neo.step_results) and the answers to its approvals (neo.signals).
 *
 * Fencing: a worker writes a run's events only while DBOS says the run's workflow is its own
 * (`dbos.workflow_status.executor_id`), so a worker that froze and woke after its run was
 * recovered elsewhere cannot write into the new owner's record.
 */
import type pg from 'pg';
import type { ExecutionOutcome } from '../../core/execution.js';
import type { RunEvent } from '../../core/events.js';
import type { RunRequest } from '../engine.js';

export interface RunRow {
  runId: string;
  flow: string;
  request: RunRequest;
  status: string;
  reason?: { code: string; message: string };
  createdAt: string;
  updatedAt: string;
  /** The executor DBOS has the run on (a live worker, or a dead one the supervisor will recover from). */
  executor?: string;
  workflowStatus?: string;
  /** A sub-flow's run: the run and step that ran it. */
  parent?: { runId: string; step: string };
  /** A run with a remote: where its result is (set when the run ends). */
  result?: RemoteResult;
}

/** Where a remote run's result is: the ref on its remote and the commit it names. */
export interface RemoteResult {
  remote: string;
  ref: string;
  commit: string;
}

/** A sub-flow's run, recorded when its parent's worker starts it (a second start keeps the first). */
export async function insertChildRun(
  pool: pg.Pool,
  runId: string,
  flow: string,
  parent: { runId: string; step: string },
  request: RunRequest,
): Promise<void> {
  await pool.query(
    `INSERT INTO neo.runs (run_id, flow, request, status, parent) VALUES ($1, $2, $3, 'running', $4)
     ON CONFLICT (run_id) DO NOTHING`,
    [runId, flow, JSON.stringify(request), JSON.stringify(parent)],
  );
}

/** The plan a worker compiled for the run (what a machine without the plan file draws its graph from). */
export async function setRunPlan(pool: pg.Pool, runId: string, plan: unknown): Promise<void> {
  await pool.query(`UPDATE neo.runs SET plan = $2 WHERE run_id = $1`, [runId, JSON.stringify(plan)]);
}

export async function runPlan(pool: pg.Pool, runId: string): Promise<unknown> {
  const { rows } = await pool.query<{ plan: unknown }>(`SELECT plan FROM neo.runs WHERE run_id = $1`, [runId]);
  return rows[0]?.plan ?? undefined;
}

/** The sub-flow runs a run started, oldest first. */
export async function childRuns(pool: pg.Pool, runId: string): Promise<RunRow[]> {
  const { rows } = await pool.query(
    `SELECT ${RUN_COLUMNS} FROM neo.runs r LEFT JOIN dbos.workflow_status w ON w.workflow_uuid = r.run_id
     WHERE r.parent->>'runId' = $1 ORDER BY r.created_at`,
    [runId],
  );
  return rows.map(toRun);
}

/**
 * `neo flow resume --engine dbos`: the outcomes of a run's (and its sub-flows') steps that did
 * not succeed are forgotten, so the resumed run tries them afresh; a succeeded step stays
 * recorded and is not run again. Only while no worker drives the run (its workflow ended).
 */
export async function forgetUnsucceeded(pool: pg.Pool, runId: string): Promise<void> {
  await pool.query(
    `DELETE FROM neo.step_results WHERE (run_id = $1 OR run_id LIKE $2) AND outcome->>'status' <> 'succeeded'`,
    [runId, `${runId.replace(/[%_\\]/g, '\\$&')}.%`],
  );
}

/** Records a run being enqueued; a second enqueue of the same id keeps the first. */
export async function insertRun(pool: pg.Pool, flow: string, request: RunRequest): Promise<boolean> {
  const { rowCount } = await pool.query(
    `INSERT INTO neo.runs (run_id, flow, request, status) VALUES ($1, $2, $3, 'queued') ON CONFLICT (run_id) DO NOTHING`,
    [request.runId, flow, JSON.stringify(request)],
  );
  return rowCount === 1;
}

export async function setRunStatus(
  pool: pg.Pool,
  runId: string,
  status: string,
  reason?: { code: string; message: string },
): Promise<void> {
  await pool.query(`UPDATE neo.runs SET status = $2, reason = $3, updated_at = now() WHERE run_id = $1`, [
    runId,
    status,
    reason === undefined ? null : JSON.stringify(reason),
  ]);
}

/** A run that could not be enqueued after all (its remote refused its base): no trace of it is left. */
export async function deleteQueuedRun(pool: pg.Pool, runId: string): Promise<void> {
  await pool.query(`DELETE FROM neo.runs WHERE run_id = $1 AND status = 'queued'`, [runId]);
}

export async function setRunResult(pool: pg.Pool, runId: string, result: RemoteResult): Promise<void> {
  await pool.query(`UPDATE neo.runs SET result = $2, updated_at = now() WHERE run_id = $1`, [
    runId,
    JSON.stringify(result),
  ]);
}

const RUN_COLUMNS = `r.run_id, r.flow, r.request, r.status, r.reason, r.result, r.created_at, r.updated_at, r.parent,
  w.executor_id, w.status AS workflow_status`;

/** Runs, newest first (a prefix of the id narrows them). */
export async function listRuns(pool: pg.Pool, prefix = '', limit = 500): Promise<RunRow[]> {
  const { rows } = await pool.query(
    `SELECT ${RUN_COLUMNS} FROM neo.runs r LEFT JOIN dbos.workflow_status w ON w.workflow_uuid = r.run_id
     WHERE r.run_id LIKE $1 ORDER BY r.created_at DESC LIMIT $2`,
    [`${prefix.replace(/[%_\\]/g, '\\$&')}%`, limit],
  );
  return rows.map(toRun);
}

function toRun(row: Record<string, unknown>): RunRow {
  return {
    runId: row.run_id as string,
    flow: row.flow as string,
    request: row.request as RunRequest,
    status: row.status as string,
    ...(row.reason === null ? {} : { reason: row.reason as { code: string; message: string } }),
    ...(row.result === null || row.result === undefined ? {} : { result: row.result as RemoteResult }),
    createdAt: (row.created_at as Date).toISOString(),
    updatedAt: (row.updated_at as Date).toISOString(),
    ...(typeof row.executor_id === 'string' ? { executor: row.executor_id } : {}),
    ...(typeof row.workflow_status === 'string' ? { workflowStatus: row.workflow_status } : {}),
    ...(row.parent === null || row.parent === undefined
      ? {}
      : { parent: row.parent as { runId: string; step: string } }),
  };
}

/** The run's mirrored events, in seq order. */
export async function runEvents(pool: pg.Pool, runId: string): Promise<RunEvent[]> {
  const { rows } = await pool.query<{ event: RunEvent }>(
    `SELECT event FROM neo.run_events WHERE run_id = $1 ORDER BY seq`,
    [runId],
  );
  return rows.map((r) => r.event);
}

/** The events of many runs (a list's summaries), each run's in seq order. */
export async function eventsOfRuns(pool: pg.Pool, runIds: string[]): Promise<Map<string, RunEvent[]>> {
  const { rows } = await pool.query<{ run_id: string; event: RunEvent }>(
    `SELECT run_id, event FROM neo.run_events WHERE run_id = ANY($1) ORDER BY run_id, seq`,
    [runIds],
  );
  const out = new Map<string, RunEvent[]>();
  for (const row of rows) out.set(row.run_id, [...(out.get(row.run_id) ?? []), row.event]);
  return out;
}

/**
 * Appends events a worker drove, fenced (see the header) by the workflow that drives them — the
 * run's own, or for a sub-flow's run the top run's: false when it is no longer this executor's.
 * A seq already there (a retried insert) is kept as it was.
 */
export async function appendEvents(
  pool: pg.Pool,
  runId: string,
  executor: string,
  events: RunEvent[],
  workflowId = runId,
): Promise<boolean> {
  const { rows } = await pool.query<{ owner: string | null }>(
    `WITH owner AS (SELECT executor_id FROM dbos.workflow_status WHERE workflow_uuid = $4 AND status = 'PENDING'),
     ins AS (
       INSERT INTO neo.run_events (run_id, seq, event, executor)
       SELECT $1, (e->>'seq')::int, e, $2 FROM jsonb_array_elements($3::jsonb) e
       WHERE (SELECT executor_id FROM owner) = $2
       ON CONFLICT (run_id, seq) DO NOTHING)
     SELECT (SELECT executor_id FROM owner) AS owner`,
    [runId, executor, JSON.stringify(events), workflowId],
  );
  return rows[0]?.owner === executor;
}

/** A step's recorded outcome, if one was recorded. */
export async function recordedOutcome(
  pool: pg.Pool,
  runId: string,
  key: string,
): Promise<ExecutionOutcome | undefined> {
  const { rows } = await pool.query<{ outcome: ExecutionOutcome }>(
    `SELECT outcome FROM neo.step_results WHERE run_id = $1 AND key = $2`,
    [runId, key],
  );
  return rows[0]?.outcome;
}

/**
 * Records a step's outcome (and, for a run with a remote, the commit of its workspace) unless one
 * is there; returns the one that is (the first recorded wins).
 */
export async function recordOutcome(
  pool: pg.Pool,
  runId: string,
  key: string,
  executor: string,
  outcome: ExecutionOutcome,
  commit?: string,
): Promise<{ outcome: ExecutionOutcome; commit?: string }> {
  const { rows } = await pool.query<{ outcome: ExecutionOutcome; commit: string | null }>(
    `WITH ins AS (
       INSERT INTO neo.step_results (run_id, key, outcome, executor, commit) VALUES ($1, $2, $3, $4, $5)
       ON CONFLICT (run_id, key) DO NOTHING RETURNING outcome, commit)
     SELECT outcome, commit FROM ins
     UNION ALL SELECT outcome, commit FROM neo.step_results WHERE run_id = $1 AND key = $2 LIMIT 1`,
    [runId, key, JSON.stringify(outcome), executor, commit ?? null],
  );
  const row = rows[0];
  if (row === undefined) return { outcome, ...(commit === undefined ? {} : { commit }) };
  return { outcome: row.outcome, ...(row.commit === null ? {} : { commit: row.commit }) };
}

/** The result commits of a run's recorded steps, in the order they were recorded. */
export async function stepCommits(pool: pg.Pool, runId: string): Promise<Array<{ key: string; commit: string }>> {
  const { rows } = await pool.query<{ key: string; commit: string }>(
    `SELECT key, commit FROM neo.step_results WHERE run_id = $1 AND commit IS NOT NULL ORDER BY at, key`,
    [runId],
  );
  return rows;
}

/** Every recorded step outcome of a run (key → outcome). */
export async function stepResults(pool: pg.Pool, runId: string): Promise<Array<{ key: string; executor: string }>> {
  const { rows } = await pool.query<{ key: string; executor: string }>(
    `SELECT key, executor FROM neo.step_results WHERE run_id = $1 ORDER BY at`,
    [runId],
  );
  return rows;
}

/** Sets a signal once (check-and-set): the first answer wins; returns the one that is there. */
export async function sendSignal(
  pool: pg.Pool,
  runId: string,
  key: string,
  value: unknown,
): Promise<{ value: unknown; first: boolean }> {
  const inserted = await pool.query(
    `INSERT INTO neo.signals (run_id, key, value) VALUES ($1, $2, $3) ON CONFLICT (run_id, key) DO NOTHING`,
    [runId, key, JSON.stringify(value)],
  );
  if (inserted.rowCount === 1) return { value, first: true };
  return { value: await readSignal(pool, runId, key), first: false };
}

export async function readSignal(pool: pg.Pool, runId: string, key: string): Promise<unknown> {
  const { rows } = await pool.query<{ value: unknown }>(
    `SELECT value FROM neo.signals WHERE run_id = $1 AND key = $2`,
    [runId, key],
  );
  return rows[0]?.value;
}

/**
 * The hash of the plan a run (or sub-flow run) compiled at its first start, pinned then; a later
 * start of it returns the pinned one to compare (see DurableRun.pinPlan).
 */
export async function pinPlanHash(pool: pg.Pool, runId: string, hash: string, file: string): Promise<string> {
  const { rows } = await pool.query<{ hash: string }>(
    `WITH ins AS (INSERT INTO neo.plan_pins (run_id, hash, file) VALUES ($1, $2, $3) ON CONFLICT (run_id) DO NOTHING RETURNING hash)
     SELECT hash FROM ins UNION ALL SELECT hash FROM neo.plan_pins WHERE run_id = $1 LIMIT 1`,
    [runId, hash, file],
  );
  return rows[0]!.hash;
}

/**
 * The capability profile a run detected at its first start (JSON null: none): the pinned one, or
 * `detect`'s, pinned now (a racing first write wins, and is what is returned).
 */
export async function pinProfile<T>(
  pool: pg.Pool,
  runId: string,
  detect: () => Promise<T | undefined>,
): Promise<T | undefined> {
  const pinned = await pool.query<{ profile: T | null }>(`SELECT profile FROM neo.profile_pins WHERE run_id = $1`, [
    runId,
  ]);
  if (pinned.rows[0] !== undefined) return pinned.rows[0].profile ?? undefined;
  const { rows } = await pool.query<{ profile: T | null }>(
    `WITH ins AS (INSERT INTO neo.profile_pins (run_id, profile) VALUES ($1, $2::jsonb) ON CONFLICT (run_id) DO NOTHING RETURNING profile)
     SELECT profile FROM ins UNION ALL SELECT profile FROM neo.profile_pins WHERE run_id = $1 LIMIT 1`,
    [runId, JSON.stringify((await detect()) ?? null)],
  );
  return rows[0]!.profile ?? undefined;
}
