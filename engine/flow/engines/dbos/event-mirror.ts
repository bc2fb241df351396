/**
 * Mirrors the events a worker drives into the run's record in PostgreSQL, in seq order and
 * without a gap: events are batched, one insert in flight at a time, each batch retried until
 * it lands (or {@link GIVE_UP_MS} passes). When DBOS no longer has the run on this executor
 * (recovered elsewhere while this worker was frozen) the mirror is fenced: `onFenced` stops the
 * drive, and nothing more is written.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type pg from 'pg';
import type { RunEvent } from '../../core/events.js';
import { appendEvents } from './run-table.js';

const GIVE_UP_MS = 60_000;

export class EventMirror {
  #pending: RunEvent[] = [];
  #flushing: Promise<void> | undefined;
  #failure: unknown;
  #fenced = false;

  constructor(
    private readonly pool: pg.Pool,
    private readonly runId: string,
    private readonly executor: string,
    private readonly onFenced: (why: string) => void,
    /** The workflow that drives these events: the run's own, or a sub-flow's top run's. */
    private readonly workflowId = runId,
  ) {}

  push(event: RunEvent): void {
    if (this.#fenced || this.#failure !== undefined) return;
    this.#pending.push(event);
    this.#flushing ??= this.#drain().finally(() => (this.#flushing = undefined));
  }

  /** Resolves when every pushed event is in the record; throws what stopped it. */
  async flush(): Promise<void> {
    while (this.#flushing !== undefined) await this.#flushing;
    if (this.#failure !== undefined) throw this.#failure;
  }

  get fenced(): boolean {
    return this.#fenced;
  }

  async #drain(): Promise<void> {
    while (this.#pending.length > 0 && !this.#fenced) {
      const batch = this.#pending.splice(0, 200);
      const deadline = Date.now() + GIVE_UP_MS;
      for (let wait = 100; ; wait = Math.min(wait * 2, 2_000)) {
        try {
          if (!(await appendEvents(this.pool, this.runId, this.executor, batch, this.workflowId))) {
            this.#fenced = true;
            this.onFenced(`run ${this.runId} was taken over by another worker`);
          }
          break;
        } catch (error) {
          if (Date.now() + wait > deadline) {
            this.#failure = error;
            this.#pending = [];
            this.onFenced(
              `the run's record cannot be written: ${error instanceof Error ? error.message : String(error)}`,
            );
            return;
          }
          await sleep(wait);
        }
      }
    }
  }
}
