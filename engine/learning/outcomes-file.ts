/**
 * `NEO_HOME/learning/harness-outcomes.jsonl`: appended once per session, never rewritten.
 * Idempotent per session id: a second recording of the same session (a retried settle, two
 * sweeps, a flow step and its persona) is a no-op. The ids already recorded are kept in memory
 * and caught up from the bytes other processes appended since the last look, so recording an
 * outcome costs a stat and one short write however long the log has grown.
 */
import { closeSync, openSync, readSync, statSync, writeSync } from 'node:fs';
import { mkdirPrivateSync, PRIVATE_FILE_MODE } from '../util/private-store.js';
import { dirname, join } from 'node:path';
import { readJsonl } from '../util/jsonl.js';
import { KeyedLock } from '../util/keyed-lock.js';
import type { HarnessOutcomeRecord } from './outcome.js';

const locks = new KeyedLock();

/** Where the outcome records of a NEO_HOME live. */
export function outcomesPath(home: string): string {
  return join(home, 'learning', 'harness-outcomes.jsonl');
}

/** Every readable record (a torn last line is skipped). */
export async function readOutcomes(home: string): Promise<HarnessOutcomeRecord[]> {
  const { records } = await readJsonl<unknown>(outcomesPath(home));
  return records.filter(isOutcomeRecord);
}

/** Appends `record` unless its session is already recorded; resolves whether it was written. */
export function appendOutcome(home: string, record: HarnessOutcomeRecord): Promise<boolean> {
  const path = outcomesPath(home);
  return locks.run(path, async () => indexOf(path).append(record));
}

/** The session ids a log holds, read incrementally. */
class OutcomeIndex {
  readonly #path: string;
  readonly #ids = new Set<string>();
  /** Bytes consumed so far (up to the last complete line). */
  #offset = 0;
  /** Whether the file ends in the middle of a line (a torn write). */
  #torn = false;

  constructor(path: string) {
    this.#path = path;
  }

  append(record: HarnessOutcomeRecord): boolean {
    this.#catchUp();
    if (this.#ids.has(record.sessionId)) return false;
    mkdirPrivateSync(dirname(this.#path));
    const fd = openSync(this.#path, 'a', PRIVATE_FILE_MODE);
    try {
      // A torn last line must not swallow this record: start on a line of its own.
      writeSync(fd, `${this.#torn ? '\n' : ''}${JSON.stringify(record)}\n`);
    } finally {
      closeSync(fd);
    }
    this.#ids.add(record.sessionId);
    return true;
  }

  #catchUp(): void {
    let size: number;
    try {
      size = statSync(this.#path).size;
    } catch {
      size = 0;
    }
    if (size < this.#offset) {
      // Rewritten or removed (a test, a person): read it again from the start.
      this.#ids.clear();
      this.#offset = 0;
    }
    this.#torn = false;
    if (size === this.#offset) return;
    const buffer = Buffer.alloc(size - this.#offset);
    const fd = openSync(this.#path, 'r');
    try {
      readSync(fd, buffer, 0, buffer.length, this.#offset);
    } finally {
      closeSync(fd);
    }
    const end = buffer.lastIndexOf(0x0a) + 1;
    for (const line of buffer.subarray(0, end).toString('utf8').split('\n')) {
      if (line === '') continue;
      try {
        const id = (JSON.parse(line) as { sessionId?: unknown }).sessionId;
        if (typeof id === 'string') this.#ids.add(id);
      } catch {
        // A bad line records no session.
      }
    }
    this.#offset += end;
    this.#torn = end < buffer.length;
  }
}

const indexes = new Map<string, OutcomeIndex>();

function indexOf(path: string): OutcomeIndex {
  let index = indexes.get(path);
  if (index === undefined) {
    index = new OutcomeIndex(path);
    indexes.set(path, index);
  }
  return index;
}

export function isOutcomeRecord(value: unknown): value is HarnessOutcomeRecord {
  if (typeof value !== 'object' || value === null) return false;
  const r = value as Partial<HarnessOutcomeRecord>;
  return (
    r.version === 1 &&
    typeof r.sessionId === 'string' &&
    typeof r.backendId === 'string' &&
    typeof r.outcome === 'string' &&
    typeof r.rounds === 'number'
  );
}
