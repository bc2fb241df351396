/**
 * Text coalescing for the live feed (seed 004 §5): consecutive `text` events of one session are
 * merged into one feed event carrying their seq range, so a chatty agent costs a client a few
 * events a second. Nothing is dropped — the merged event holds every text, and `firstSeq`..`seq`
 * says which log lines it covers; full fidelity stays in events.jsonl.
 */
import type { PersistedSessionEvent, SessionLiveEvent } from '../session/index.js';

/** One event of the live feed: a log line as it is, or a run of text lines merged. */
export interface FeedEvent extends SessionLiveEvent {
  /** The first seq a merged text covers (absent: the event covers only `seq`). */
  firstSeq?: number;
}

/** Joins text blocks the way the feed shows them: each block its own paragraph. */
function joinTexts(a: string, b: string): string {
  return a === '' ? b : `${a}\n\n${b}`;
}

/** Merges `next` (a text line) into `pending` (a text feed event of the same session). */
export function mergeText(pending: FeedEvent, next: SessionLiveEvent): FeedEvent {
  const text = next.event.type === 'text' ? next.event.text : '';
  const before = pending.event.type === 'text' ? pending.event.text : '';
  return {
    sessionId: pending.sessionId,
    seq: next.seq,
    firstSeq: pending.firstSeq ?? pending.seq,
    at: next.at,
    event: { type: 'text', text: joinTexts(before, text) },
  };
}

/** Coalesces a history read from events.jsonl: every run of consecutive text lines becomes one. */
export function coalesceHistory(sessionId: string, lines: readonly PersistedSessionEvent[]): FeedEvent[] {
  const out: FeedEvent[] = [];
  for (const line of lines) {
    const live: SessionLiveEvent = { sessionId, ...line };
    const last = out.at(-1);
    if (line.event.type === 'text' && last !== undefined && last.event.type === 'text') {
      out[out.length - 1] = mergeText(last, live);
    } else out.push(live);
  }
  return out;
}

/**
 * The live coalescer: a text line waits up to `windowMs` for more text of its session; any other
 * kind flushes the waiting text first, then passes at once, so seq order is kept.
 */
export class TextCoalescer {
  readonly #windowMs: number;
  readonly #emit: (event: FeedEvent) => void;
  readonly #pending = new Map<string, { event: FeedEvent; timer: NodeJS.Timeout }>();

  constructor(windowMs: number, emit: (event: FeedEvent) => void) {
    this.#windowMs = windowMs;
    this.#emit = emit;
  }

  push(live: SessionLiveEvent): void {
    const waiting = this.#pending.get(live.sessionId);
    if (live.event.type === 'text') {
      if (waiting !== undefined) {
        waiting.event = mergeText(waiting.event, live);
        return;
      }
      const timer = setTimeout(() => this.flush(live.sessionId), this.#windowMs);
      timer.unref();
      this.#pending.set(live.sessionId, { event: live, timer });
      return;
    }
    if (waiting !== undefined) this.flush(live.sessionId);
    this.#emit(live);
  }

  /** Emits the session's waiting text now. */
  flush(sessionId: string): void {
    const waiting = this.#pending.get(sessionId);
    if (waiting === undefined) return;
    clearTimeout(waiting.timer);
    this.#pending.delete(sessionId);
    this.#emit(waiting.event);
  }

  /** Emits every waiting text and stops. */
  close(): void {
    for (const sessionId of [...this.#pending.keys()]) this.flush(sessionId);
  }
}
