/**
 * A run's files read together and believed only together: run.json's MAC, the event chain, the
 * chain point run.json recorded (a log cut short is caught), and plan.json against the hash the
 * chain pinned. This is what every caller that acts on a run reads (resume, the settling of an
 * abandoned run, `neo flow approve`, a parent taking its sub-flow's outcome, the server's run
 * routes); snapshot.json is never read back as truth — the state is the fold of the events.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { readJsonOrNull } from '../../util/atomic-file.js';
import { NeoError } from '../../util/errors.js';
import { storeKey } from '../../util/store-key.js';
import type { RunEvent } from '../core/events.js';
import type { CompiledPlan } from '../core/plan.js';
import { replay } from '../core/reduce.js';
import { initialRunState, type RunState } from '../core/state.js';
import { planHash } from './plan-pin.js';
import { parseRunLog, requireAuthenticated, type RunLog } from './run-chain.js';
import { RUN_FILES, runDir, type RunRecord } from './run-files.js';
import { loadRunRecord, shownRecord, shownTampered } from './runs.js';
import type { OpenedRecord } from './sealed-record.js';
import { isTrustError, tamperedError } from './trust-errors.js';

/** A run whose files check: the record, the pinned plan, the events and their fold. */
export interface CheckedRun {
  record: RunRecord;
  plan: CompiledPlan;
  events: RunEvent[];
  state: RunState;
}

/**
 * Checks a run's files against each other (throws STORE_TAMPERED, STORE_UNAUTHENTICATED or
 * STORE_CORRUPT). Returns the plan hash the run follows: the chain's last pin, or — before the
 * first pin — the one run.json's (sealed) manifest recorded.
 */
export function checkRun(dir: string, opened: OpenedRecord, log: RunLog, plan: CompiledPlan): string {
  const events = join(dir, RUN_FILES.events);
  if (opened.untrusted !== undefined) throw opened.untrusted;
  requireAuthenticated(log, events);
  const chain = opened.chain;
  if (chain !== undefined && chain.seq > 0) {
    if (log.events.length < chain.seq)
      throw tamperedError(
        events,
        `the log ends at seq ${log.events.length}, but run.json was written after seq ${chain.seq}: lines were removed`,
      );
    if (log.macs[chain.seq - 1] !== chain.mac)
      throw tamperedError(`${events}:${chain.seq}`, 'not the line run.json was written after');
  }
  // The chain's last pin; before any (a run killed before its first event), the manifest's.
  const pinned = log.planHash ?? opened.record.manifest.planHash;
  if (planHash(plan) !== pinned)
    throw tamperedError(
      join(dir, RUN_FILES.plan),
      'not the plan this run pinned (its hash differs from the one its events record)',
    );
  return pinned;
}

/** The run's files, read (run.json first: the log it was written beside can only have grown since) and checked. */
export async function readCheckedRun(home: string, runId: string): Promise<CheckedRun> {
  const opened = await loadRunRecord(home, runId);
  const id = opened.record.runId;
  if (opened.untrusted !== undefined) throw opened.untrusted;
  const dir = runDir(home, id);
  const log = await readRunLog(home, id);
  const plan = await readJsonOrNull<CompiledPlan>(join(dir, RUN_FILES.plan));
  if (plan === null) throw new NeoError('FLOW_RUN_NOT_FOUND', `run \`${id}\` has no readable plan.json`);
  checkRun(dir, opened, log, plan);
  return { record: opened.record, plan, events: log.events, state: replay(initialRunState(id, []), log.events) };
}

/** A run's events.jsonl, parsed and its chain checked (no repair: a reader never writes). */
export async function readRunLog(home: string, runId: string): Promise<RunLog> {
  const path = join(runDir(home, runId), RUN_FILES.events);
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    text = '';
  }
  return parseRunLog(text, { key: storeKey(home), runId, path });
}

/** A run as a reader that only shows it sees it: checked, or said to be tampered or unverified. */
export interface ShownRun {
  record: RunRecord;
  events: RunEvent[];
  /** The fold of the events (null when they cannot be read at all). */
  state: RunState | null;
}

/**
 * A run for display: when its files check, as they are; when they do not, the record says
 * `tampered` with the reason (and no events are shown); a run recorded before neo authenticated
 * its runs is shown from its unchecked files, marked `unverified`.
 */
export async function readShownRun(home: string, runId: string, record?: RunRecord): Promise<ShownRun> {
  const opened = await loadRunRecord(home, runId);
  const shown = record ?? shownRecord(opened);
  try {
    const run = await readCheckedRun(home, opened.record.runId);
    return { record: record ?? run.record, events: run.events, state: run.state };
  } catch (error) {
    if (!isTrustError(error) && !(error instanceof NeoError && error.code === 'STORE_CORRUPT')) throw error;
    if (error.code === 'STORE_UNAUTHENTICATED' && opened.untrusted?.code === 'STORE_UNAUTHENTICATED') {
      const log = await readRunLog(home, opened.record.runId).catch(() => undefined);
      if (log !== undefined && !log.authenticated)
        return { record: shown, events: log.events, state: replay(initialRunState(shown.runId, []), log.events) };
    }
    return { record: shownTampered(shown, error), events: [], state: null };
  }
}
