import { writeFileAtomic } from '../../util/atomic-file.js';
import type { SessionLog } from '../log.js';
import type { CodeSessionRecord } from './record.js';

/**
 * The write-through mirror of one meta.json. Patches apply to the in-memory record at once (so
 * they are serialized by construction); writes coalesce: while one atomic replace is in flight
 * (or within `minIntervalMs` of the last one), every later patch rides the single write queued
 * behind it. A chatty session therefore costs a bounded number of fsyncs, and the file on disk is
 * always a whole record (temp + fsync + rename). events.jsonl, not meta.json, is what recovery
 * trusts, so a mirror a few milliseconds behind loses nothing.
 */
export class MetaFile {
  readonly path: string;
  record: CodeSessionRecord;
  readonly #log: SessionLog;
  readonly #minIntervalMs: number;
  #inFlight: Promise<void> | undefined;
  #queued: Promise<void> | undefined;
  #lastWriteAt = 0;
  /** Set by `flush`: no write waits out the interval any more (the record is being closed). */
  #closing = false;
  /** Ends the wait of a write that is waiting out the interval. */
  #wake: (() => void) | undefined;

  constructor(path: string, record: CodeSessionRecord, log: SessionLog, minIntervalMs = 0) {
    this.path = path;
    this.record = record;
    this.#log = log;
    this.#minIntervalMs = minIntervalMs;
  }

  /** Resolves once a write that includes every change made so far has finished (or failed, logged). */
  save(): Promise<void> {
    if (this.#queued !== undefined) return this.#queued;
    const previous = this.#inFlight ?? Promise.resolve();
    const next = previous.then(() => this.#pace()).then(() => this.#write());
    this.#queued = next;
    this.#inFlight = next;
    void next.then(() => {
      if (this.#inFlight === next) this.#inFlight = undefined;
    });
    return next;
  }

  /**
   * Like `save`, but neither this write nor any later one waits out the interval: the pacing
   * bounds a chatty live session's fsyncs, and a release's last record is one write whose wait
   * the whole release (and the step after it) would otherwise sit through.
   */
  flush(): Promise<void> {
    this.#closing = true;
    this.#wake?.();
    return this.save();
  }

  /** Waits for every queued write. */
  async settled(): Promise<void> {
    while (this.#inFlight !== undefined) await this.#inFlight;
  }

  /** Waits out the rest of the minimum interval since the last write. */
  #pace(): Promise<void> | undefined {
    const wait = this.#lastWriteAt + this.#minIntervalMs - Date.now();
    if (wait <= 0 || this.#closing) return undefined;
    return new Promise((resolve) => {
      const wake = () => {
        clearTimeout(timer);
        this.#wake = undefined;
        resolve();
      };
      const timer = setTimeout(wake, wait);
      this.#wake = wake;
    });
  }

  async #write(): Promise<void> {
    // From here on, a new patch needs a new write: this one has taken its snapshot.
    this.#queued = undefined;
    const text = `${JSON.stringify(this.record, null, 2)}\n`;
    this.#lastWriteAt = Date.now();
    try {
      await writeFileAtomic(this.path, text, { private: true });
    } catch (error) {
      this.#log.warn('code_session_meta_write_failed', { sessionId: this.record.sessionId, error });
    }
  }
}
