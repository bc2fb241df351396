import { writeJsonAtomic, writeJsonAtomicSync, type WriteOptions } from '../../util/atomic-file.js';

/**
 * Writes the latest value only, at most once per interval: a burst of transitions costs one
 * write, and the fsyncs of a checkpoint never crowd out the event appends that executions wait
 * on. events.jsonl is the truth; a checkpoint may lag it by one interval, and idle() writes the
 * last value at once. The very first write waits its interval too: a run shorter than that
 * writes each file once, at its end, instead of ending while an async write is in flight.
 */
export class CoalescedWriter {
  static readonly INTERVAL_MS = 150;
  /** A write that must land first (the file's creation). */
  readonly #after: Promise<void>;
  #pending: { path: string; produce: () => unknown } | undefined;
  #running: Promise<void> | undefined;
  #wake: (() => void) | undefined;
  #writes = 0;
  #hurry = false;
  #started = false;

  readonly #options: WriteOptions;

  constructor(after: Promise<void>, options: WriteOptions) {
    this.#after = after;
    this.#options = options;
  }

  write(path: string, produce: () => unknown): void {
    this.#pending = { path, produce };
    this.#writes++;
    this.#running ??= this.#loop();
  }

  /**
   * Writes the latest value now and resolves when it is on disk. The last write is synchronous:
   * whoever waits for it (a run's end, an approval) has nothing else to do meanwhile.
   */
  async idle(): Promise<void> {
    const last = this.#pending;
    const writes = this.#writes;
    this.#pending = undefined;
    this.#hurry = true;
    this.#wake?.();
    while (this.#running !== undefined) await this.#running;
    await this.#after;
    this.#hurry = false;
    // A write() while we waited is newer than `last` and its own loop has written it.
    if (last !== undefined && this.#writes === writes) writeJsonAtomicSync(last.path, last.produce(), this.#options);
  }

  async #loop(): Promise<void> {
    try {
      if (!this.#started && !this.#hurry) await this.#pause();
      this.#started = true;
      while (this.#pending !== undefined) {
        await this.#after;
        // idle() may have taken the value meanwhile, and written it itself.
        const next = this.#pending;
        this.#pending = undefined;
        if (next === undefined) break;
        await writeJsonAtomic(next.path, next.produce(), this.#options);
        if (this.#pending === undefined || this.#hurry) continue;
        await this.#pause();
      }
    } finally {
      this.#running = undefined;
    }
  }

  #pause(): Promise<void> {
    return new Promise<void>((resolve) => {
      const timer = setTimeout(done, CoalescedWriter.INTERVAL_MS);
      this.#wake = done;
      function done() {
        clearTimeout(timer);
        resolve();
      }
    }).finally(() => (this.#wake = undefined));
  }
}
