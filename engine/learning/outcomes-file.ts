/**
 * `NEO_HOME/learning/harness-outcomes.jsonl`: appended once per session, never rewritten.
 * Idempotent per session id: a second recording of the same session (a retried settle, two
 * sweeps) is a no-op, checked against the file under a per-file lock so order and uniqueness
 * hold inside a process.
 */
import { join } from 'node:path';
import { JsonlAppender, readJsonl } from '../util/jsonl.js';
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
  return locks.run(path, async () => {
    const existing = await readOutcomes(home);
    if (existing.some((r) => r.sessionId === record.sessionId)) return false;
    const appender = new JsonlAppender(path);
    try {
      await appender.append(record);
    } finally {
      await appender.close();
    }
    return true;
  });
}

function isOutcomeRecord(value: unknown): value is HarnessOutcomeRecord {
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
