import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { diskUse } from '../../util/disk-use.js';
import { NeoError } from '../../util/errors.js';
import { acquireLockFile, type RunLock } from '../store/lock-file.js';
import { RUN_FILES, runDir, type RunRecord } from '../store/run-files.js';
import { gateRunDir } from '../workspace/gate-tree.js';
import { judgeWorkspace, removeWorkspace } from '../workspace/removal.js';
import { remoteCloneDir } from '../workspace/remote-clone.js';
import { isAbandoned, listRunsSettled } from './abandoned.js';
import { approvalsDir } from './approvals.js';
import { removeRunOutputs } from './step-output.js';

/** Which runs `neo flow clean` looks at. */
export interface CleanCriteria {
  /** Only these runs (ids or unique prefixes); every run when absent. */
  runIds?: readonly string[];
  /** Only runs that last changed longer ago than this. */
  olderThanMs?: number;
  /** Only runs in these statuses. */
  statuses?: readonly string[];
  /** Also remove workspaces that hold work nowhere else (uncommitted, unmerged, a copy). */
  force?: boolean;
  /** Say what would go; remove nothing. */
  dryRun?: boolean;
  now?: number;
}

/** One run (with its sub-flow runs) and what clean did or would do with it. */
export interface CleanItem {
  runId: string;
  flow: string;
  status: string;
  updatedAt: string;
  /** The run folders (its own and its sub-flows'), the workspace folders and the branch it removes. */
  removes: { runs: string[]; workspace: string[]; branch?: string };
  /** What it takes on disk now. */
  bytes: number;
  /** Why it is kept; absent when it is (or would be) removed. */
  kept?: { reason: string; force: boolean };
}

/**
 * Removes finished runs: each one's worktree (through git) and `neo/<runId>` branch or copy,
 * its run folder, its sub-flow runs' folders and its approvals. A run a live process drives is
 * never touched; a workspace that holds work nowhere else (uncommitted changes, commits no
 * branch of the repository contains, a copy) is kept unless `force`. Each removal happens under
 * the run's lock, judged again there, so a resume that starts meanwhile wins.
 */
export async function cleanRuns(home: string, criteria: CleanCriteria): Promise<CleanItem[]> {
  const records = await listRunsSettled(home);
  const children = new Map<string, RunRecord[]>();
  for (const record of records) {
    if (record.parent === undefined) continue;
    children.set(record.parent.runId, [...(children.get(record.parent.runId) ?? []), record]);
  }
  const known = new Set(records.map((r) => r.runId));
  // A sub-flow goes with its parent; one whose parent is gone stands alone.
  const tops = records.filter((r) => r.parent === undefined || !known.has(r.parent.runId));
  const selected = select(tops, criteria);
  const items: CleanItem[] = [];
  for (const record of selected) items.push(await cleanOne(home, record, descendants(record, children), criteria));
  return items;
}

function select(records: RunRecord[], criteria: CleanCriteria): RunRecord[] {
  let chosen = records;
  if (criteria.runIds !== undefined && criteria.runIds.length > 0) {
    chosen = criteria.runIds.map((id) => {
      const matches = records.filter((r) => r.runId === id || r.runId.startsWith(id));
      const exact = matches.find((r) => r.runId === id);
      if (exact !== undefined || matches.length === 1) return exact ?? matches[0]!;
      throw new NeoError('FLOW_RUN_NOT_FOUND', `no run \`${id}\``, {
        hint:
          matches.length > 1
            ? `several runs start with it: ${matches
                .slice(0, 5)
                .map((r) => r.runId)
                .join(', ')}`
            : 'list runs with `neo flow list`',
      });
    });
  }
  const now = criteria.now ?? Date.now();
  if (criteria.olderThanMs !== undefined)
    chosen = chosen.filter((r) => now - Date.parse(r.updatedAt) >= criteria.olderThanMs!);
  if (criteria.statuses !== undefined && criteria.statuses.length > 0)
    chosen = chosen.filter((r) => criteria.statuses!.includes(r.status));
  return chosen;
}

function descendants(record: RunRecord, children: Map<string, RunRecord[]>): RunRecord[] {
  const out: RunRecord[] = [];
  for (const child of children.get(record.runId) ?? []) out.push(child, ...descendants(child, children));
  return out;
}

async function cleanOne(
  home: string,
  record: RunRecord,
  subflows: RunRecord[],
  criteria: CleanCriteria,
): Promise<CleanItem> {
  const runs = [record, ...subflows].map((r) => r.runId);
  const item = await describe(home, record, runs, criteria);
  if (criteria.dryRun || item.kept !== undefined) return item;
  let lock: RunLock;
  try {
    lock = acquireLockFile(join(runDir(home, record.runId), RUN_FILES.lock), record.runId, () => new RunLive());
  } catch (error) {
    if (error instanceof RunLive) return { ...item, kept: { reason: 'a live process holds it', force: false } };
    throw error;
  }
  try {
    // Judged again under the lock: what was true a moment ago may not be now.
    const again = await describe(home, record, runs, criteria);
    if (again.kept !== undefined) return again;
    if (record.workspace !== undefined && record.parent === undefined) await removeWorkspace(record.workspace);
    if (record.parent === undefined) {
      // A dbos run with a remote worked from this home's clone of it: its result is on the remote.
      await rm(remoteCloneDir(home, record.runId), { recursive: true, force: true });
      await rm(`${remoteCloneDir(home, record.runId)}.index`, { force: true });
    }
    for (const id of runs.slice().reverse()) {
      await rm(approvalsDir(home, id), { recursive: true, force: true });
      await rm(gateRunDir(home, id), { recursive: true, force: true });
      await removeRunOutputs(home, id);
      await rm(runDir(home, id), { recursive: true, force: true });
    }
    return again;
  } finally {
    lock.release();
  }
}

async function describe(home: string, record: RunRecord, runs: string[], criteria: CleanCriteria): Promise<CleanItem> {
  // A sub-flow whose parent is gone borrowed that parent's workspace: it is not its to remove.
  // Nor is a workspace that a record neo cannot authenticate names (recorded before neo sealed
  // run.json, or forged to look so: it could name any folder): its run folder goes, the
  // workspace is left to the user.
  const own = record.parent === undefined && record.unverified !== true ? record.workspace : undefined;
  const hold = own === undefined ? { folders: [] as string[] } : await judgeWorkspace(own);
  const folders = [...runs.map((id) => runDir(home, id)), ...hold.folders];
  const sizes = await Promise.all(folders.map((folder) => diskUse(folder)));
  const item: CleanItem = {
    runId: record.runId,
    flow: record.flow,
    status: record.status,
    updatedAt: record.updatedAt,
    removes: {
      runs,
      workspace: hold.folders,
      ...(own?.isolation === 'worktree' && own.branch !== undefined ? { branch: own.branch } : {}),
    },
    bytes: sizes.reduce((sum, size) => sum + size, 0),
  };
  if (live(record))
    return { ...item, kept: { reason: `it is ${record.status}: a live process drives it`, force: false } };
  if (hold.holds !== undefined && !criteria.force) return { ...item, kept: { reason: hold.holds, force: true } };
  return item;
}

/** `running` or `waiting` after every abandoned run was settled: its driver is alive. */
function live(record: RunRecord): boolean {
  return (record.status === 'running' || record.status === 'waiting') && !isAbandoned(record);
}

/** Thrown by the lock while a live process holds the run (never seen outside this module). */
class RunLive extends NeoError {
  constructor() {
    super('FLOW_RUN_LIVE', 'the run is held by a live process');
  }
}
