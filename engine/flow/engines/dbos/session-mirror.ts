/**
 * Copies the code sessions a worker's run starts into PostgreSQL while they run (every
 * {@link COPY_MS}) and once more when the drive ends, so `neo sessions show --engine dbos` shows a
 * session's record and events from any machine. The worker's session store stays the session's
 * home; a copy that fails (the database gone for a moment) is tried again at the next tick, and a
 * session whose record is settled and fully copied is no longer read.
 */
import type pg from 'pg';
import { CodeSessionStore, stderrLog } from '../../../session/index.js';
import { copySession } from './session-table.js';

const COPY_MS = 1_000;
const SETTLED = new Set(['ended', 'failed', 'orphaned']);

interface Followed {
  runId: string;
  step: string;
  copiedSeq: number;
  settled: boolean;
}

export class SessionMirror {
  readonly #store: CodeSessionStore;
  readonly #followed = new Map<string, Followed>();
  #timer: NodeJS.Timeout | undefined;
  #copying: Promise<void> = Promise.resolve();

  constructor(
    private readonly pool: pg.Pool,
    home: string,
    private readonly executor: string,
  ) {
    this.#store = new CodeSessionStore(home, { log: stderrLog });
  }

  /** A step's session, told once it started (the step's progress names it). */
  follow(sessionId: string, runId: string, step: string): void {
    if (this.#followed.has(sessionId)) return;
    this.#followed.set(sessionId, { runId, step, copiedSeq: 0, settled: false });
    this.#timer ??= setInterval(() => void this.#copyAll(), COPY_MS);
  }

  /** The last copy of every session followed (awaited before the drive returns). */
  async close(): Promise<void> {
    if (this.#timer !== undefined) clearInterval(this.#timer);
    this.#timer = undefined;
    await this.#copyAll();
  }

  #copyAll(): Promise<void> {
    // One copy at a time: a slow database never has two ticks race over the same seqs.
    this.#copying = this.#copying.then(async () => {
      for (const [sessionId, followed] of this.#followed)
        if (!followed.settled) await this.#copy(sessionId, followed).catch(() => undefined);
    });
    return this.#copying;
  }

  async #copy(sessionId: string, followed: Followed): Promise<void> {
    const record = await this.#store.get(sessionId);
    if (record === null) return;
    const events = (await this.#store.readEvents(sessionId, { afterSeq: followed.copiedSeq })) ?? [];
    await copySession(
      this.pool,
      { runId: followed.runId, step: followed.step, executor: this.executor },
      record,
      events,
    );
    followed.copiedSeq = events.at(-1)?.seq ?? followed.copiedSeq;
    // Settled once a settled record's read found nothing new (its last events may land after its status).
    followed.settled = SETTLED.has(record.status) && events.length === 0;
  }
}
