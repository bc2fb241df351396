import { join } from 'node:path';
import { describeProcess } from '../../execution/index.js';
import { defined } from '../../util/defined.js';
import { NeoError } from '../../util/errors.js';
import type { RunEvent } from '../core/events.js';
import { reduce, replay } from '../core/reduce.js';
import { initialRunState } from '../core/state.js';
import { acquireLockFile, type LockInfo, type RunLock } from '../store/lock-file.js';
import { RUN_FILES, runDir, type RunRecord } from '../store/run-files.js';
import { RunStore } from '../store/run-store.js';
import { driverAlive, listRuns, loadRunRecord, readRunRecord, shownRecord, shownTampered } from '../store/runs.js';
import { readShownRun, type ShownRun } from '../store/checked-run.js';
import { isTrustError } from '../store/trust-errors.js';
import { tidyRuns } from '../store/tidy.js';
import { logRunEvent, runDecisionLog } from './decisions.js';
import { recordFromState } from './record.js';

/** How long a reader waits for another reader that is recording the same run. */
const LOCK_WAIT_MS = 2_000;

/** Whether run.json says a process drives the run, and that process is gone. */
export function isAbandoned(record: RunRecord): boolean {
  return (record.status === 'running' || record.status === 'waiting') && !driverAlive(record);
}

/**
 * A run whose driver died (kill -9, a crash, a power cut) could not write its end: run.json still
 * says `running`. The first reader that finds it so (`neo flow list/show/logs`, resume,
 * `neo serve`) records what happened, once, under the run's lock so it never races a resume or
 * another reader: what the dead driver left running is stopped, then a `run.interrupted` event
 * follows its last one (stamped with that event's time: the hours nobody drove it are no run
 * time), then snapshot.json and run.json are replaced atomically. Returns the record to show; a
 * store it cannot write still shows the run interrupted. A run whose files do not check
 * (checked-run.ts) is never written: it is shown tampered (or, recorded before neo authenticated
 * runs, interrupted and unverified).
 */
export function settleAbandoned(
  home: string,
  record: RunRecord,
  options: { onTakeOver?: (holder: LockInfo) => void } = {},
): Promise<RunRecord> {
  if (!isAbandoned(record)) return Promise.resolve(record);
  // Two readers in one process (requests to `neo serve`) share one settling: the lock tells
  // processes apart, not callers within one.
  const key = runDir(home, record.runId);
  let settling = inFlight.get(key);
  if (settling === undefined) {
    settling = settle(home, record, options).finally(() => inFlight.delete(key));
    inFlight.set(key, settling);
  }
  return settling;
}

const inFlight = new Map<string, Promise<RunRecord>>();

async function settle(
  home: string,
  record: RunRecord,
  options: { onTakeOver?: (holder: LockInfo) => void },
): Promise<RunRecord> {
  let lock: RunLock | 'busy';
  try {
    lock = await takeLock(home, record.runId);
  } catch {
    return { ...record, status: 'interrupted' };
  }
  // A live process holds the run: a resume drives it now, or a reader is slow; it is theirs.
  if (lock === 'busy') return readRunRecord(home, record.runId);
  if (lock.tookOverFrom !== undefined) options.onTakeOver?.(lock.tookOverFrom);
  try {
    const fresh = await readRunRecord(home, record.runId);
    if (!isAbandoned(fresh)) return fresh;
    return await recordInterrupted(home, fresh, await tidyRuns(home, fresh.runId));
  } catch (error) {
    if (isTrustError(error) && error.code === 'STORE_TAMPERED') return shownTampered(record, error);
    return { ...record, status: 'interrupted' };
  } finally {
    lock.release();
  }
}

/** Every run as shown, newest first, each abandoned one recorded interrupted. */
export async function listRunsSettled(home: string): Promise<RunRecord[]> {
  const records = await listRuns(home);
  return Promise.all(records.map((record) => settleAbandoned(home, record)));
}

/**
 * One run's record as shown (an id or a unique prefix), recorded interrupted if its driver is
 * gone; one that fails its MAC is shown tampered, never acted on.
 */
export async function readRunSettled(home: string, runId: string): Promise<RunRecord> {
  return settleAbandoned(home, shownRecord(await loadRunRecord(home, runId)));
}

/** {@link readRunSettled} with the run's events and their fold, checked (readShownRun). */
export async function readRunShown(home: string, runId: string): Promise<ShownRun> {
  const record = await readRunSettled(home, runId);
  return readShownRun(home, record.runId, record);
}

/** The interruption in events.jsonl, the decision log (with what was stopped), snapshot.json and run.json. */
async function recordInterrupted(home: string, record: RunRecord, stopped: readonly string[]): Promise<RunRecord> {
  const { store, plan, events } = await RunStore.open(home, record.runId);
  try {
    let state = replay(initialRunState(record.runId, []), events);
    const last = events.at(-1);
    // Killed before its first event: there is nothing to add to; a resume starts it afresh.
    if (last !== undefined) {
      const reason = `the neo that drove it (${record.pid === undefined ? 'no pid recorded' : describeProcess({ pid: record.pid, ...defined({ start: record.pidStart }) })}) is gone: killed or crashed before it could record its end`;
      const event: RunEvent = { type: 'run.interrupted', reason, seq: last.seq + 1, at: last.at };
      await store.append(event);
      state = reduce(state, event);
      const decisions = runDecisionLog(store.dir);
      for (const line of stopped)
        decisions.write('warn', 'flow_orphans_stopped', { runId: record.runId, message: line });
      logRunEvent(decisions, record.runId, event);
      await decisions.close();
    }
    const settled: RunRecord = {
      ...recordFromState(record, state, plan, { finished: true }),
      status: 'interrupted',
      ...defined({ reason: state.reason }),
    };
    store.settleNow(state, settled);
    return settled;
  } finally {
    await store.close();
  }
}

/** The run's lock, waiting briefly for another process's reader; `busy` while a live process holds it. */
async function takeLock(home: string, runId: string): Promise<RunLock | 'busy'> {
  const deadline = Date.now() + LOCK_WAIT_MS;
  for (;;) {
    try {
      return acquireLockFile(join(runDir(home, runId), RUN_FILES.lock), runId, () => new LockBusy());
    } catch (error) {
      if (!(error instanceof LockBusy)) throw error;
      if (Date.now() >= deadline) return 'busy';
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  }
}

/** Thrown by the lock while a live process holds it (never seen outside this module). */
class LockBusy extends NeoError {
  constructor() {
    super('FLOW_RUN_LIVE', 'the run is held by a live process');
  }
}
