import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { isSameProcess } from '../../execution/index.js';
import { readJsonOrNull } from '../../util/atomic-file.js';
import { NeoError } from '../../util/errors.js';
import { checkIdOrPrefix, isId } from '../../util/ids.js';
import type { RunState } from '../core/state.js';
import { RUN_FILES, runDir, type RunRecord } from './run-files.js';
import { defined } from '../../util/defined.js';

/** Every run under NEO_HOME/runs, newest first. Unreadable folders are skipped. */
export async function listRuns(home: string): Promise<RunRecord[]> {
  let names: string[];
  try {
    names = await readdir(join(home, 'runs'));
  } catch {
    return [];
  }
  const records = await Promise.all(
    names.map((name) => readJsonOrNull<RunRecord>(join(home, 'runs', name, RUN_FILES.record))),
  );
  return records
    .filter((r): r is RunRecord => r !== null)
    .sort((a, b) => (a.createdAt < b.createdAt ? 1 : a.createdAt > b.createdAt ? -1 : 0));
}

/** One run's record, or a typed error naming the fix. */
export async function readRunRecord(home: string, runId: string): Promise<RunRecord> {
  checkIdOrPrefix('run', runId);
  const record = isId('run', runId)
    ? await readJsonOrNull<RunRecord>(join(runDir(home, runId), RUN_FILES.record))
    : null;
  if (record === null) {
    // A prefix is matched against the store's own ids; it never becomes a path itself.
    const known = (await listRuns(home)).map((r) => r.runId).filter((id) => isId('run', id));
    const prefixed = known.filter((id) => id.startsWith(runId));
    if (prefixed.length === 1 && prefixed[0] !== runId) return readRunRecord(home, prefixed[0]!);
    throw new NeoError('FLOW_RUN_NOT_FOUND', `no run \`${runId}\``, {
      hint:
        prefixed.length > 1
          ? `several runs start with it: ${prefixed.slice(0, 5).join(', ')}`
          : 'list runs with `neo flow list`',
    });
  }
  return record;
}

/** The last checkpointed state of a run (snapshot.json). */
export async function readRunSnapshot(
  home: string,
  runId: string,
): Promise<{ seq: number; machine: string; state: RunState } | null> {
  return readJsonOrNull(join(runDir(home, runId), RUN_FILES.snapshot));
}

/**
 * Whether the process that drives a run is still that very process (pid and start time, zombies
 * excluded): a recycled pid or a zombie is not its driver.
 */
export function driverAlive(record: Pick<RunRecord, 'pid' | 'pidStart'>): boolean {
  if (record.pid === undefined) return false;
  return isSameProcess({ pid: record.pid, ...defined({ start: record.pidStart }) });
}
