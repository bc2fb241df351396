/**
 * The dbos engine's PostgreSQL: which database (`--database-url`, NEO_DATABASE_URL, else the
 * one `neo db up` started for this NEO_HOME), every connection bounded in time (a database that
 * does not answer is ENGINE_DB_UNREACHABLE within {@link CONNECT_TIMEOUT_MS}, never a hang), and
 * neo's own tables beside DBOS's: the runs' mirrored events, each step's recorded outcome, the
 * signals (approvals), the workers' heartbeats and the copies of agent steps' code sessions, in
 * schema `neo` at {@link SCHEMA_VERSION}.
 */
import pg from 'pg';
import { NeoError, UsageError } from '../../../util/errors.js';
import { readEmbeddedDb } from './embedded-db.js';

/** How long a connection attempt (and so any command's first query) may take. */
export const CONNECT_TIMEOUT_MS = 5_000;
/**
 * neo's tables' version; a database at another one is refused, not migrated behind a worker's
 * back. Columns and tables added within a version are nullable or new and read by nothing older
 * (a run's remote result, a step's result commit, the sessions' copies).
 */
export const SCHEMA_VERSION = 1;

/** The database named by the flag, NEO_DATABASE_URL or `neo db up`'s record, if any (`neo serve`: optional). */
export function configuredDatabaseUrl(
  home: string,
  env: Record<string, string | undefined>,
  flag?: string,
): string | undefined {
  if ((flag ?? env.NEO_DATABASE_URL ?? readEmbeddedDb(home)?.url ?? '') === '') return undefined;
  return databaseUrl(home, env, flag);
}

/** The database to use, or a usage error saying how to name one. */
export function databaseUrl(home: string, env: Record<string, string | undefined>, flag?: string): string {
  const url = flag ?? env.NEO_DATABASE_URL ?? readEmbeddedDb(home)?.url;
  if (url === undefined || url === '')
    throw new UsageError('ENGINE_DB_UNSET', 'the dbos engine needs a PostgreSQL database and none is named', {
      hint: 'pass --database-url postgresql://…, set NEO_DATABASE_URL, or start one here with `neo db up`',
    });
  if (!/^postgres(ql)?:\/\//.test(url))
    throw new UsageError('ENGINE_DB_BAD_URL', `\`${redactUrl(url)}\` is not a postgresql:// URL`, {
      hint: 'give --database-url postgresql://user:password@host:port/database',
    });
  return url;
}

/** The URL without its password, for messages. */
export function redactUrl(url: string): string {
  return url.replace(/\/\/([^:/@]+):[^@]*@/, '//$1:***@');
}

/** A pool whose every connection attempt and statement is bounded. */
export function openPool(url: string, max = 4): pg.Pool {
  const pool = new pg.Pool({
    connectionString: url,
    max,
    connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
    query_timeout: 30_000,
    idleTimeoutMillis: 10_000,
  });
  // An idle client's socket dying (the server stopped) is reported by the next query, not thrown here.
  pool.on('error', () => undefined);
  return pool;
}

/** The typed error for a database that cannot be reached (or stopped answering). */
export function unreachable(url: string, cause: unknown): NeoError {
  const message = cause instanceof Error ? cause.message : String(cause);
  return new NeoError('ENGINE_DB_UNREACHABLE', `PostgreSQL at ${redactUrl(url)} cannot be reached: ${message}`, {
    hint: 'is the database up (`neo db status`)? check --database-url / NEO_DATABASE_URL',
    cause,
  });
}

/** Runs `work` with a bounded deadline: past it the database is unreachable (a hung enqueue, a frozen server). */
export async function bounded<T>(url: string, ms: number, work: () => Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      work(),
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`no answer in ${ms} ms`)), ms);
        timer.unref();
      }),
    ]);
  } catch (error) {
    if (error instanceof NeoError) throw error;
    if (isConnectionError(error)) throw unreachable(url, error);
    throw error;
  } finally {
    if (timer !== undefined) clearTimeout(timer);
  }
}

function isConnectionError(error: unknown): boolean {
  const e = error as { code?: string; message?: string };
  if (
    typeof e?.code === 'string' &&
    /^(ECONNREFUSED|ECONNRESET|ETIMEDOUT|EHOSTUNREACH|ENOTFOUND|EAI_AGAIN|57P0[1-3]|08\d\d\d)$/.test(e.code)
  )
    return true;
  return /timeout|no answer in|terminated|Connection terminated|connect/i.test(e?.message ?? '');
}

const DDL = `
CREATE SCHEMA IF NOT EXISTS neo;
CREATE TABLE IF NOT EXISTS neo.meta (key text PRIMARY KEY, value text NOT NULL);
CREATE TABLE IF NOT EXISTS neo.runs (
  run_id text PRIMARY KEY, flow text NOT NULL, request jsonb NOT NULL, status text NOT NULL,
  reason jsonb, created_at timestamptz NOT NULL DEFAULT now(), updated_at timestamptz NOT NULL DEFAULT now());
CREATE TABLE IF NOT EXISTS neo.run_events (
  run_id text NOT NULL, seq integer NOT NULL, event jsonb NOT NULL, executor text NOT NULL,
  at timestamptz NOT NULL DEFAULT now(), PRIMARY KEY (run_id, seq));
CREATE TABLE IF NOT EXISTS neo.step_results (
  run_id text NOT NULL, key text NOT NULL, outcome jsonb NOT NULL, executor text NOT NULL,
  at timestamptz NOT NULL DEFAULT now(), PRIMARY KEY (run_id, key));
CREATE TABLE IF NOT EXISTS neo.signals (
  run_id text NOT NULL, key text NOT NULL, value jsonb NOT NULL, at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (run_id, key));
CREATE TABLE IF NOT EXISTS neo.workers (
  executor_id text PRIMARY KEY, host text NOT NULL, pid integer NOT NULL, concurrency integer NOT NULL,
  started_at timestamptz NOT NULL DEFAULT now(), beat_at timestamptz NOT NULL DEFAULT now());
ALTER TABLE neo.runs ADD COLUMN IF NOT EXISTS result jsonb;
ALTER TABLE neo.step_results ADD COLUMN IF NOT EXISTS commit text;
ALTER TABLE neo.runs ADD COLUMN IF NOT EXISTS parent jsonb;
ALTER TABLE neo.runs ADD COLUMN IF NOT EXISTS plan jsonb;
CREATE TABLE IF NOT EXISTS neo.sessions (
  session_id text PRIMARY KEY, run_id text NOT NULL, step text NOT NULL, executor text NOT NULL, record jsonb NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(), updated_at timestamptz NOT NULL DEFAULT now());
CREATE INDEX IF NOT EXISTS sessions_run ON neo.sessions (run_id);
CREATE TABLE IF NOT EXISTS neo.plan_pins (run_id text PRIMARY KEY, hash text NOT NULL, file text NOT NULL);
CREATE TABLE IF NOT EXISTS neo.profile_pins (run_id text PRIMARY KEY, profile jsonb);
CREATE TABLE IF NOT EXISTS neo.session_events (
  session_id text NOT NULL, seq integer NOT NULL, event jsonb NOT NULL, PRIMARY KEY (session_id, seq));
`;

/**
 * Makes neo's tables (once per database, under an advisory lock so workers starting together do
 * not race), then checks their version: another version is ENGINE_DB_SCHEMA, nothing written.
 */
export async function ensureSchema(pool: pg.Pool, url: string): Promise<void> {
  const client = await bounded(url, CONNECT_TIMEOUT_MS + 1_000, () => pool.connect());
  try {
    await client.query(`SELECT pg_advisory_lock(hashtext('neo-schema'))`);
    try {
      await client.query(DDL);
      await client.query(
        `INSERT INTO neo.meta (key, value) VALUES ('schema_version', $1) ON CONFLICT (key) DO NOTHING`,
        [String(SCHEMA_VERSION)],
      );
      const { rows } = await client.query<{ value: string }>(`SELECT value FROM neo.meta WHERE key = 'schema_version'`);
      const found = rows[0]?.value;
      if (found !== String(SCHEMA_VERSION))
        throw new NeoError(
          'ENGINE_DB_SCHEMA',
          `the database at ${redactUrl(url)} holds neo tables at schema version ${found}, this neo uses ${SCHEMA_VERSION}`,
          { hint: 'run every worker and client at the same neo version, or point this one at its own database' },
        );
    } finally {
      await client.query(`SELECT pg_advisory_unlock(hashtext('neo-schema'))`).catch(() => undefined);
    }
  } finally {
    client.release();
  }
}
