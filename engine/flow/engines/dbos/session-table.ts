/**
 * The code sessions of dbos runs in PostgreSQL: an agent step's session lives on the worker that
 * runs it (its NEO_HOME's session store), and the worker copies its record and events here as
 * they come (session-mirror.ts), so any machine can show it (`neo sessions show --engine dbos`).
 * A session's id is its own (a step re-run on another worker starts a new one), so a copy is
 * idempotent: a seq already there is kept, the record is replaced by the newer one.
 */
import type pg from 'pg';
import type { CodeSessionRecord, PersistedSessionEvent } from '../../../session/index.js';

export interface SessionRow {
  sessionId: string;
  runId: string;
  step: string;
  executor: string;
  record: CodeSessionRecord;
  events: number;
}

export async function copySession(
  pool: pg.Pool,
  at: { runId: string; step: string; executor: string },
  record: CodeSessionRecord,
  events: readonly PersistedSessionEvent[],
): Promise<void> {
  await pool.query(
    `WITH rec AS (
       INSERT INTO neo.sessions (session_id, run_id, step, executor, record) VALUES ($1, $2, $3, $4, $5)
       ON CONFLICT (session_id) DO UPDATE SET record = EXCLUDED.record, updated_at = now())
     INSERT INTO neo.session_events (session_id, seq, event)
     SELECT $1, (e->>'seq')::int, e FROM jsonb_array_elements($6::jsonb) e
     ON CONFLICT (session_id, seq) DO NOTHING`,
    [record.sessionId, at.runId, at.step, at.executor, JSON.stringify(record), JSON.stringify(events)],
  );
}

const ROW = `s.session_id, s.run_id, s.step, s.executor, s.record,
  (SELECT count(*) FROM neo.session_events e WHERE e.session_id = s.session_id)::int AS events`;

/** One session by id or unique prefix: undefined when none, every match when several. */
export async function findSessions(pool: pg.Pool, idOrPrefix: string): Promise<SessionRow[]> {
  const { rows } = await pool.query(
    `SELECT ${ROW} FROM neo.sessions s WHERE s.session_id LIKE $1 || '%' ORDER BY s.session_id LIMIT 2`,
    [idOrPrefix.replace(/[\\%_]/g, '\\$&')],
  );
  const exact = rows.find((r) => r.session_id === idOrPrefix);
  return (exact === undefined ? rows : [exact]).map(sessionRow);
}

/** The sessions a run's steps ran, oldest first. */
export async function runSessions(pool: pg.Pool, runId: string): Promise<SessionRow[]> {
  const { rows } = await pool.query(`SELECT ${ROW} FROM neo.sessions s WHERE s.run_id = $1 ORDER BY s.created_at`, [
    runId,
  ]);
  return rows.map(sessionRow);
}

export async function sessionEvents(pool: pg.Pool, sessionId: string, afterSeq = 0): Promise<PersistedSessionEvent[]> {
  const { rows } = await pool.query<{ event: PersistedSessionEvent }>(
    `SELECT event FROM neo.session_events WHERE session_id = $1 AND seq > $2 ORDER BY seq`,
    [sessionId, afterSeq],
  );
  return rows.map((r) => r.event);
}

function sessionRow(r: Record<string, unknown>): SessionRow {
  return {
    sessionId: r.session_id as string,
    runId: r.run_id as string,
    step: r.step as string,
    executor: r.executor as string,
    record: r.record as CodeSessionRecord,
    events: r.events as number,
  };
}
