/**
 * One client's feed of one session: the history after its cursor, then live lines, each line
 * exactly once and in seq order, text coalesced. A live line can arrive before the line before
 * it is readable (a process attached over the socket streams a line up before its own appender
 * writes it), so a gap is filled from events.jsonl before anything newer passes.
 */
import type { PersistedSessionEvent, SessionLiveEvent } from '../session/index.js';
import { coalesceHistory, TextCoalescer, type FeedEvent } from './coalesce.js';

/** How often, and how long apart, a gap is looked for in the file before it is given up on. */
const GAP_TRIES = 20;
const GAP_WAIT_MS = 25;

export class SessionFeed {
  readonly #sessionId: string;
  readonly #read: (afterSeq: number) => Promise<PersistedSessionEvent[]>;
  readonly #emit: (event: FeedEvent) => void;
  readonly #coalescer: TextCoalescer;
  #last: number;
  /** Live lines waiting for the history or a gap to be read first. */
  #waiting: SessionLiveEvent[] = [];
  #busy: Promise<void>;
  #closed = false;

  constructor(options: {
    sessionId: string;
    afterSeq: number;
    coalesceMs: number;
    read: (afterSeq: number) => Promise<PersistedSessionEvent[]>;
    emit: (event: FeedEvent) => void;
  }) {
    this.#sessionId = options.sessionId;
    this.#read = options.read;
    this.#emit = options.emit;
    this.#last = options.afterSeq;
    this.#coalescer = new TextCoalescer(options.coalesceMs, options.emit);
    this.#busy = this.#history();
  }

  /** Resolves once the history has been sent. */
  get ready(): Promise<void> {
    return this.#busy;
  }

  push(live: SessionLiveEvent): void {
    if (this.#closed || live.sessionId !== this.#sessionId) return;
    this.#waiting.push(live);
    this.#busy = this.#busy.then(() => this.#drain());
  }

  close(): void {
    this.#closed = true;
    this.#coalescer.close();
  }

  async #history(): Promise<void> {
    const lines = await this.#read(this.#last);
    if (this.#closed) return;
    for (const event of coalesceHistory(this.#sessionId, lines)) {
      this.#last = event.seq;
      this.#emit(event);
    }
  }

  async #drain(): Promise<void> {
    const lines = this.#waiting.sort((a, b) => a.seq - b.seq);
    this.#waiting = [];
    for (const live of lines) {
      if (this.#closed || live.seq <= this.#last) continue;
      if (live.seq > this.#last + 1) await this.#fill(live.seq);
      if (live.seq <= this.#last) continue;
      this.#last = live.seq;
      this.#coalescer.push(live);
    }
  }

  /** Reads the lines between the last one sent and `before` from the file. */
  async #fill(before: number): Promise<void> {
    for (let attempt = 0; attempt < GAP_TRIES && !this.#closed; attempt++) {
      const lines = (await this.#read(this.#last)).filter((line) => line.seq < before);
      for (const line of lines) {
        if (line.seq !== this.#last + 1) break;
        this.#last = line.seq;
        this.#coalescer.push({ sessionId: this.#sessionId, ...line });
      }
      if (this.#last >= before - 1) return;
      await new Promise((resolve) => setTimeout(resolve, GAP_WAIT_MS));
    }
  }
}
