import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { isSameProcess } from '../../execution/index.js';
import { readJsonOrNull } from '../../util/atomic-file.js';
import { NeoError } from '../../util/errors.js';
import { checkIdOrPrefix, isId } from '../../util/ids.js';
import { storeKey } from '../../util/store-key.js';
import { RUN_FILES, runDir, type RunRecord } from './run-files.js';
import { openRecord, type OpenedRecord } from './sealed-record.js';
import { defined } from '../../util/defined.js';

/** Every run under NEO_HOME/runs, newest first, as shown (a record that fails its MAC shows as tampered). */
export async function listRuns(home: string): Promise<RunRecord[]> {
  let names: string[];
  try {
    names = await readdir(join(home, 'runs'));
  } catch {
    return [];
  }
  const records = await Promise.all(
    names.filter((name) => isId('run', name)).map((name) => openRunRecord(home, name).catch(() => null)),
  );
  return records
    .filter((r): r is OpenedRecord => r !== null)
    .map(shownRecord)
    .sort((a, b) => (a.createdAt < b.createdAt ? 1 : a.createdAt > b.createdAt ? -1 : 0));
}

/**
 * The newest top-level run's id (a sub-flow's run is its parent's), for a command that reads one
 * run and was given no id; none yet is FLOW_RUN_NOT_FOUND, saying how to start one.
 */
export async function latestRunId(home: string): Promise<string> {
  const latest = (await listRuns(home)).find((record) => record.parent === undefined);
  if (latest !== undefined) return latest.runId;
  throw new NeoError('FLOW_RUN_NOT_FOUND', 'no run yet to show', {
    hint: 'start one with `neo flow run plan.yaml`',
  });
}

/**
 * One run's record (an id or a unique prefix), checked against its MAC, or a typed error naming
 * the fix. For a caller that acts on the run: a record that fails its MAC (or has none) is
 * STORE_TAMPERED (STORE_UNAUTHENTICATED).
 */
export async function readRunRecord(home: string, runId: string): Promise<RunRecord> {
  const opened = await loadRunRecord(home, runId);
  if (opened.untrusted !== undefined) throw opened.untrusted;
  return opened.record;
}

/** One run's record (an id or a unique prefix) as read, with why it cannot be believed if so. */
export async function loadRunRecord(home: string, runId: string): Promise<OpenedRecord> {
  checkIdOrPrefix('run', runId);
  const opened = isId('run', runId) ? await openRunRecord(home, runId) : null;
  if (opened !== null) return opened;
  // A prefix is matched against the store's own ids; it never becomes a path itself.
  const known = (await readdir(join(home, 'runs')).catch(() => [] as string[])).filter((id) => isId('run', id));
  const prefixed = known.filter((id) => id.startsWith(runId));
  if (prefixed.length === 1 && prefixed[0] !== runId) return loadRunRecord(home, prefixed[0]!);
  throw new NeoError('FLOW_RUN_NOT_FOUND', `no run \`${runId}\``, {
    hint:
      prefixed.length > 1
        ? `several runs start with it: ${prefixed.slice(0, 5).join(', ')}`
        : 'list runs with `neo flow list`',
  });
}

/** The record as a reader that only shows it presents it: tampered or unverified, said so. */
export function shownRecord(opened: OpenedRecord): RunRecord {
  const { record, untrusted } = opened;
  if (untrusted === undefined) return record;
  if (untrusted.code === 'STORE_UNAUTHENTICATED') return { ...record, unverified: true };
  return shownTampered(record, untrusted);
}

/**
 * A record shown as tampered, with the error that says where. What it says is unauthenticated:
 * only its displayable fields are kept, each of the type a reader expects (a forged record must
 * not crash `neo flow list`), and nothing that names a live process.
 */
export function shownTampered(record: RunRecord, error: NeoError): RunRecord {
  const r = record as unknown as Record<string, unknown>;
  const text = (value: unknown) => (typeof value === 'string' ? value : '?');
  const count = (value: unknown) => (typeof value === 'number' && Number.isFinite(value) ? value : 0);
  const ledger = (typeof r.ledger === 'object' && r.ledger !== null ? r.ledger : {}) as Record<string, unknown>;
  const steps = typeof r.steps === 'object' && r.steps !== null && !Array.isArray(r.steps) ? r.steps : {};
  return {
    version: 1,
    runId: record.runId,
    flow: text(r.flow),
    planFile: text(r.planFile),
    status: 'tampered',
    reason: { code: error.code, message: error.message, ...defined({ hint: error.hint }) },
    createdAt: text(r.createdAt),
    updatedAt: text(r.updatedAt),
    inputs: {},
    manifest: { setHash: '', planHash: '', definitions: [] },
    options: {},
    ledger: {
      turns: count(ledger.turns),
      tokens: count(ledger.tokens),
      costUsd: count(ledger.costUsd),
      wallMs: count(ledger.wallMs),
    },
    steps: Object.fromEntries(
      Object.entries(steps as Record<string, { status?: unknown }>).map(([id, step]) => [
        id,
        { status: text(step?.status) },
      ]),
    ),
    segments: [],
  };
}

async function openRunRecord(home: string, runId: string): Promise<OpenedRecord | null> {
  const path = join(runDir(home, runId), RUN_FILES.record);
  const value = await readJsonOrNull<Record<string, unknown>>(path);
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return null;
  const opened = openRecord(storeKey(home), runId, value, path);
  // The folder names the run, whatever the file says.
  return { ...opened, record: { ...opened.record, runId } };
}

/**
 * Whether the process that drives a run is still that very process (pid and start time, zombies
 * excluded): a recycled pid or a zombie is not its driver.
 */
export function driverAlive(record: Pick<RunRecord, 'pid' | 'pidStart'>): boolean {
  if (record.pid === undefined) return false;
  return isSameProcess({ pid: record.pid, ...defined({ start: record.pidStart }) });
}
