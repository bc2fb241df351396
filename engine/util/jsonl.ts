import { closeSync, fsyncSync, openSync, writeSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { APPEND_NO_FOLLOW } from './no-follow.js';
import { mkdirPrivateSync, PRIVATE_FILE_MODE } from './private-store.js';

/**
 * One serialized appender per JSONL file. Lines queued in the same macrotask are written together
 * in one `write` (group commit), so order is the call order and a burst of events costs one
 * syscall and one promise: every line of a batch gets the batch's promise. The write itself is
 * synchronous: a few kilobytes into the page cache take microseconds, while a thread-pool round
 * trip per batch would sit on every caller's critical path. A line is in the kernel before
 * `append` resolves, so a killed process loses nothing it acknowledged; `fsync: true` also
 * survives power loss, at a cost.
 */
export class JsonlAppender {
  readonly path: string;
  readonly #fsync: boolean;
  #fd: number | undefined;
  #pending: string[] = [];
  #batch: Batch | undefined;
  #closed = false;

  constructor(path: string, options: { fsync?: boolean } = {}) {
    this.path = path;
    this.#fsync = options.fsync ?? false;
  }

  /** Queues one record (serialized as a single line) and resolves once it is written. */
  append(record: unknown): Promise<void> {
    return this.appendLine(JSON.stringify(record));
  }

  /**
   * Queues pre-serialized text: one line, or several whole lines joined by `\n` (a caller's own
   * batch). No trailing newline; each record must be a single line of JSON. Lines queued in the
   * same macrotask share one promise, resolved when their write is done.
   */
  appendLine(line: string): Promise<void> {
    if (this.#closed) return Promise.reject(new Error(`appender for ${this.path} is closed`));
    this.#pending.push(line);
    if (this.#batch === undefined) {
      this.#batch = newBatch();
      // After the current macrotask: everything a burst queues across its microtasks (an async
      // event pump yields between events) goes out in one write.
      setImmediate(() => this.#flush());
    }
    return this.#batch.promise;
  }

  /** Writes everything queued so far, now (a caller about to acknowledge it). */
  flushNow(): void {
    if (this.#pending.length > 0) this.#flush();
  }

  /** Waits for everything queued so far. */
  async flush(): Promise<void> {
    this.flushNow();
  }

  /** Flushes and closes the file; later appends reject. Idempotent. */
  async close(): Promise<void> {
    await this.flush();
    this.#closed = true;
    if (this.#fd !== undefined) closeSync(this.#fd);
    this.#fd = undefined;
  }

  #flush(): void {
    const batch = this.#batch;
    if (batch === undefined || this.#pending.length === 0) return;
    const chunk = `${this.#pending.join('\n')}\n`;
    this.#pending = [];
    this.#batch = undefined;
    try {
      if (this.#fd === undefined) {
        mkdirPrivateSync(dirname(this.path));
        // A link planted where the log goes is refused, never written through.
        this.#fd = openSync(this.path, APPEND_NO_FOLLOW, PRIVATE_FILE_MODE);
      }
      writeSync(this.#fd, chunk);
      if (this.#fsync) fsyncSync(this.#fd);
      batch.resolve();
    } catch (error) {
      batch.reject(error);
    }
  }
}

interface Batch {
  promise: Promise<void>;
  resolve: () => void;
  reject: (error: unknown) => void;
}

function newBatch(): Batch {
  let resolve!: () => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<void>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  // A batch nobody awaits must not surface as an unhandled rejection; awaiting callers still see it.
  promise.catch(() => undefined);
  return { promise, resolve, reject };
}

/** The outcome of reading a JSONL file that a crash may have torn. */
export interface JsonlRead<T> {
  records: T[];
  /** 1-based line numbers that did not parse (a torn last line is the usual case). */
  badLines: number[];
}

/**
 * Reads every parsable line. A missing file reads as empty; an unparsable line is skipped and
 * reported in `badLines` so the caller can warn, never throw.
 */
export async function readJsonl<T = unknown>(path: string): Promise<JsonlRead<T>> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch {
    return { records: [], badLines: [] };
  }
  return parseJsonl<T>(text);
}

/** Parses JSONL text; see {@link readJsonl}. */
export function parseJsonl<T = unknown>(text: string): JsonlRead<T> {
  const records: T[] = [];
  const badLines: number[] = [];
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (line.trim() === '') continue;
    try {
      records.push(JSON.parse(line) as T);
    } catch {
      badLines.push(i + 1);
    }
  }
  return { records, badLines };
}
