/**
 * The live registry: every process group this neo process started that may still run. It is
 * mirrored to a journal, `NEO_HOME/processes/<pid>-<start>.jsonl`, written before a spawn
 * returns, so when this process dies without stopping its groups (kill -9, an OOM kill) a later
 * neo finds them (see sweep.ts). A run's record names its driving process by the same identity.
 *
 * On a normal exit every group still alive is killed and the journal removed; the journal is
 * truncated whenever no group is live, so a long-lived daemon's stays small.
 */
import { closeSync, ftruncateSync, openSync, unlinkSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { selfIdentity } from '../identity.js';
import { isOurGroup, killTree, signalGroup, taggedStragglers, type GroupRecord } from '../process-group.js';
import { mkdirPrivateSync, PRIVATE_FILE_MODE } from '../../util/private-store.js';

/** The header of a journal: whose groups these are. */
export interface JournalOwner {
  owner: { pid: number; start?: number };
  /** The command that owned them (`neo flow run plan.yaml`), for messages. */
  command: string;
  at: string;
}

const live = new Map<number, GroupRecord>();
let journalDir: string | undefined;
let journal: { path: string; fd: number; headerBytes: number } | undefined;
let spawned = 0;
let exitHook = false;

/** The folder journals live in. */
export function journalFolder(home: string): string {
  return join(home, 'processes');
}

/** This process's id in tags and journal names: `<pid>-<start>`. */
export function ownerId(identity = selfIdentity()): string {
  return `${identity.pid}-${identity.start ?? 0}`;
}

/**
 * Journals the groups this process starts under `home` from now on (the CLI sets it once per
 * command). Without it, groups are still tracked and killed at exit, only not on disk.
 */
export function journalProcessesIn(home: string): void {
  if (journalDir === join(home, 'processes')) return;
  closeJournal();
  journalDir = journalFolder(home);
}

/**
 * The tag of the next spawn. The journal exists before any process carrying the tag does, so
 * even a process whose group was never written down is found by its tag.
 */
export function nextTag(): string {
  openJournal();
  return `${ownerId()}/${++spawned}`;
}

/** Records a group that just started (in memory and, synchronously, in the journal). */
export function trackGroup(group: GroupRecord): void {
  live.set(group.pgid, group);
  installExitHook();
  if (journal === undefined) return;
  try {
    writeSync(journal.fd, `${JSON.stringify(group)}\n`);
  } catch {
    // A full disk must not fail the spawn: the group is still tracked in memory and by its tag.
  }
}

/** The group's leader exited: forget the group once nothing of it is left. */
export function leaderExited(pgid: number): void {
  if (!live.has(pgid) || signalGroup(pgid, 0)) return;
  forget(pgid);
}

/** The groups this process started that may still run. */
export function liveGroups(): GroupRecord[] {
  return [...live.values()];
}

/** Kill-tree for every group still alive (SIGTERM, `graceMs`, SIGKILL); for a command's end. */
export async function stopLiveGroups(graceMs: number): Promise<void> {
  await Promise.all(
    [...live.values()].map(async (group) => {
      if (isOurGroup(group)) await killTree({ pgid: group.pgid, tag: group.tag }, graceMs);
      forget(group.pgid);
    }),
  );
}

function forget(pgid: number): void {
  live.delete(pgid);
  if (live.size === 0 && journal !== undefined) {
    try {
      ftruncateSync(journal.fd, journal.headerBytes);
    } catch {
      // Only a size concern; the sweep checks every line anyway.
    }
  }
}

function openJournal(): void {
  if (journal !== undefined || journalDir === undefined) return;
  const self = selfIdentity();
  const path = join(journalDir, `${ownerId(self)}.jsonl`);
  try {
    mkdirPrivateSync(journalDir);
    const fd = openSync(path, 'a', PRIVATE_FILE_MODE);
    const header: JournalOwner = {
      owner: self,
      command: ['neo', ...process.argv.slice(2, 5)].join(' '),
      at: new Date().toISOString(),
    };
    const line = `${JSON.stringify(header)}\n`;
    writeSync(fd, line);
    journal = { path, fd, headerBytes: Buffer.byteLength(line) };
  } catch {
    journalDir = undefined;
  }
  installExitHook();
}

function closeJournal(): void {
  if (journal === undefined) return;
  try {
    closeSync(journal.fd);
    unlinkSync(journal.path);
  } catch {
    // Already gone.
  }
  journal = undefined;
}

/**
 * SIGKILL, synchronously, to every group still alive and every process carrying this process's
 * tags: for a process about to end at once (its exit, a second Ctrl-C), which cannot wait for a
 * kill-tree's grace. The journal goes too.
 */
export function killLiveGroupsNow(): void {
  if (live.size > 0) {
    for (const group of live.values()) if (isOurGroup(group)) signalGroup(group.pgid, 'SIGKILL');
    // What left those groups but carries their tags goes too. Only scanned when something was
    // still running: a clean exit pays nothing.
    for (const pid of taggedStragglers({ tag: `${ownerId()}/` })) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // Gone meanwhile.
      }
    }
    live.clear();
  }
  closeJournal();
}

/** A neo that exits without stopping its groups (a command that forgot, a crash) kills them now. */
function installExitHook(): void {
  if (exitHook) return;
  exitHook = true;
  process.once('exit', killLiveGroupsNow);
}
