import { open, readFile, truncate } from 'node:fs/promises';
import { parseJsonl } from '../../util/jsonl.js';
import type { PersistedSessionEvent } from '../events.js';
import type { SessionLog } from '../log.js';

/** How far back lastSeq looks before falling back to reading the whole file. */
const TAIL_BYTES = 64 * 1024;

/**
 * Reads events.jsonl. Missing file → null. Unparsable lines are skipped with a warning: a torn
 * last line is what a crash mid-append leaves behind, and is not an error.
 */
export async function readEventsFile(
  path: string,
  sessionId: string,
  log: SessionLog,
): Promise<PersistedSessionEvent[] | null> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch {
    return null;
  }
  const { records, badLines } = parseJsonl<PersistedSessionEvent>(text);
  if (badLines.length > 0) {
    const lineCount = text.endsWith('\n') ? text.split('\n').length - 1 : text.split('\n').length;
    const torn = badLines.length === 1 && badLines[0] === lineCount && !text.endsWith('\n');
    log.warn(torn ? 'code_session_events_torn_line' : 'code_session_events_bad_lines', { sessionId, lines: badLines });
  }
  return records.filter(isPersistedEvent);
}

/** The highest seq in the file (0 when empty or missing), reading only its tail when it can. */
export async function lastSeqInFile(path: string): Promise<number> {
  let handle;
  try {
    handle = await open(path, 'r');
  } catch {
    return 0;
  }
  try {
    const { size } = await handle.stat();
    if (size === 0) return 0;
    const length = Math.min(size, TAIL_BYTES);
    const buffer = Buffer.alloc(length);
    await handle.read(buffer, 0, length, size - length);
    const lines = buffer.toString('utf8').split('\n');
    // The first line of a partial window may be cut; only trust it when the window is the file.
    const first = length === size ? 0 : 1;
    for (let i = lines.length - 1; i >= first; i--) {
      const seq = seqOf(lines[i]!);
      if (seq !== undefined) return seq;
    }
    if (length === size) return 0;
  } finally {
    await handle.close();
  }
  const { records } = parseJsonl<PersistedSessionEvent>(await readFile(path, 'utf8'));
  return records.filter(isPersistedEvent).reduce((max, r) => Math.max(max, r.seq), 0);
}

/**
 * Cuts a torn last line (bytes after the last newline) so appends continue on a clean line.
 * A torn line was never acknowledged: its write had not completed when the process died.
 * Returns the number of bytes removed.
 */
export async function repairTornTail(path: string): Promise<number> {
  let text: Buffer;
  try {
    text = await readFile(path);
  } catch {
    return 0;
  }
  if (text.length === 0 || text[text.length - 1] === 0x0a) return 0;
  const keep = text.lastIndexOf(0x0a) + 1;
  await truncate(path, keep);
  return text.length - keep;
}

function seqOf(line: string): number | undefined {
  if (line.trim() === '') return undefined;
  try {
    const parsed = JSON.parse(line) as unknown;
    return isPersistedEvent(parsed) ? parsed.seq : undefined;
  } catch {
    return undefined;
  }
}

function isPersistedEvent(value: unknown): value is PersistedSessionEvent {
  if (typeof value !== 'object' || value === null) return false;
  const v = value as Partial<PersistedSessionEvent>;
  return typeof v.seq === 'number' && typeof v.at === 'string' && typeof v.event === 'object' && v.event !== null;
}
