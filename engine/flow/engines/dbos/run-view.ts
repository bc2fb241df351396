/**
 * The dbos runs as `neo serve` shows them beside the local ones: the runs with their mirrored
 * events, one run with its plan (the one its worker compiled, kept in neo.runs), and which runs
 * moved lately (for the server's live feed). Read-only — it creates no table (a database no
 * worker has used yet has no runs) — and every call is bounded, so a database that stops
 * answering costs a request {@link VIEW_TIMEOUT_MS}, never a hang.
 */
import type pg from 'pg';
import type { CompiledPlan } from '../../core/plan.js';
import type { RunEvent } from '../../core/events.js';
import { bounded, openPool, redactUrl } from './database.js';
import { eventsOfRuns, listRuns, runEvents, runPlan, type RunRow } from './run-table.js';

/** How long one view call may take before the database counts as unreachable. */
export const VIEW_TIMEOUT_MS = 3_000;
/** At most this many dbos runs are listed. */
const LIST_LIMIT = 200;

export interface ViewedRun {
  row: RunRow;
  events: RunEvent[];
}

export class DbosRunView {
  readonly #pool: pg.Pool;

  constructor(private readonly url: string) {
    this.#pool = openPool(url, 3);
  }

  /** Where it reads from, its password hidden (for notices). */
  get where(): string {
    return redactUrl(this.url);
  }

  async list(): Promise<ViewedRun[]> {
    return this.#q(async () => {
      const rows = await listRuns(this.#pool, '', LIST_LIMIT);
      const events = await eventsOfRuns(
        this.#pool,
        rows.map((r) => r.runId),
      );
      return rows.map((row) => ({ row, events: events.get(row.runId) ?? [] }));
    }, []);
  }

  /** One run by its exact id, with the plan its worker compiled (null before a worker took it). */
  async run(runId: string): Promise<(ViewedRun & { plan: CompiledPlan | null }) | undefined> {
    return this.#q(async () => {
      const row = (await listRuns(this.#pool, runId, 2)).find((r) => r.runId === runId);
      if (row === undefined) return undefined;
      const [events, plan] = await Promise.all([runEvents(this.#pool, runId), runPlan(this.#pool, runId)]);
      return { row, events, plan: (plan as CompiledPlan | undefined) ?? null };
    }, undefined);
  }

  /** The last event seq of every run that is live or changed in the last 30 s. */
  async moved(): Promise<Map<string, number>> {
    return this.#q(async () => {
      const { rows } = await this.#pool.query<{ run_id: string; seq: number | null }>(
        `SELECT r.run_id, (SELECT max(seq) FROM neo.run_events e WHERE e.run_id = r.run_id) AS seq
         FROM neo.runs r WHERE r.status IN ('queued', 'running', 'resuming') OR r.updated_at > now() - interval '30 seconds'`,
      );
      return new Map(rows.map((r) => [r.run_id, r.seq ?? 0]));
    }, new Map());
  }

  async close(): Promise<void> {
    await this.#pool.end().catch(() => undefined);
  }

  /** A bounded read; a database with no neo tables yet has nothing to show (`empty`). */
  async #q<T>(work: () => Promise<T>, empty: T): Promise<T> {
    try {
      return await bounded(this.url, VIEW_TIMEOUT_MS, work);
    } catch (error) {
      // 42P01: no such table (no worker or client used this database yet).
      if ((error as { code?: string }).code === '42P01') return empty;
      throw error;
    }
  }
}
