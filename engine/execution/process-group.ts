/**
 * Process groups and kill-tree. Every process neo starts leads its own group, so one signal to
 * `-pgid` reaches it and everything it started (shells, test runners, language servers). What
 * left the group (a CLI that starts its own tools detached, a `setsid` daemon) still carries the
 * spawn's tag in its environment, so kill-tree finds it too.
 */
import { isRunning, livingProcesses, readStat, readTags } from './proc.js';

/** A process group neo started, as recorded in the live registry and the on-disk journal. */
export interface GroupRecord {
  pgid: number;
  /** The leader's start time: with pgid, it tells this group from a later one that reuses the number. */
  start?: number;
  /** The NEO_PROCESS_TAG word its processes were started with. */
  tag: string;
  /** What it runs, for messages (the program and its first arguments). */
  label: string;
  /** When it started (ISO). */
  at: string;
}

/** Which processes a kill reaches: a group, and processes tagged with `tag` (a word, or a prefix ending in `/`). */
export interface KillTarget {
  pgid?: number;
  tag?: string;
}

/** Pids of group `pgid` that are still running (zombies excluded). */
export function livingGroupMembers(pgid: number): number[] {
  const members = livingProcesses((stat) => stat.pgrp === pgid).map((stat) => stat.pid);
  if (members.length > 0 || readStat(process.pid) !== undefined) return members;
  // No /proc: ask the kernel whether the group has anyone at all.
  return signalGroup(pgid, 0) ? [pgid] : [];
}

/** Whether any process of the group is still running. */
export function groupAlive(pgid: number): boolean {
  return livingGroupMembers(pgid).length > 0;
}

/** Sends `signal` to the whole group; false when there is no such group (already gone). */
export function signalGroup(pgid: number, signal: NodeJS.Signals | 0): boolean {
  try {
    process.kill(-pgid, signal);
    return true;
  } catch {
    return false;
  }
}

/**
 * Whether a recorded group is still the one neo started, never an unrelated group that reused
 * the number: its leader runs with the recorded start time, or (the leader gone, which keeps
 * the number reserved while members live) a member still carries the group's tag.
 */
export function isOurGroup(group: GroupRecord): boolean {
  const leader = readStat(group.pgid);
  if (leader !== undefined && leader.pgrp === group.pgid)
    return group.start === undefined || leader.start === group.start;
  return livingGroupMembers(group.pgid).some((pid) => readTags(pid).includes(group.tag));
}

/** Processes tagged by `target.tag` that run outside its group (they would escape a group signal). */
export function taggedStragglers(target: KillTarget): number[] {
  const tag = target.tag;
  if (tag === undefined || tag === '') return [];
  const prefix = tag.endsWith('/');
  return livingProcesses((stat) => stat.pid !== process.pid && stat.pgrp !== target.pgid)
    .filter((stat) => readTags(stat.pid).some((word) => (prefix ? word.startsWith(tag) : word === tag)))
    .map((stat) => stat.pid);
}

/**
 * Kill-tree: SIGTERM to the group and to every straggler carrying the tag, up to `graceMs` for
 * them to go, then SIGKILL to whatever is left. Resolves once nothing of it runs (or after a
 * bounded last wait).
 */
export async function killTree(target: KillTarget, graceMs: number): Promise<void> {
  const remaining = (): number[] => [
    ...(target.pgid === undefined ? [] : livingGroupMembers(target.pgid)),
    ...taggedStragglers(target),
  ];
  const signal = (sig: NodeJS.Signals, pids: number[]) => {
    if (target.pgid !== undefined) signalGroup(target.pgid, sig);
    for (const pid of pids) signalPid(pid, sig);
  };
  const first = remaining();
  if (first.length === 0) return;
  signal('SIGTERM', first);
  if (await waitUntilGone(remaining, graceMs)) return;
  signal('SIGKILL', remaining());
  await waitUntilGone(remaining, 2_000);
}

/** Polls until `remaining()` is empty; false when `timeoutMs` passes first. */
async function waitUntilGone(remaining: () => number[], timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (remaining().length > 0) {
    if (Date.now() >= deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return true;
}

/** Polls until group `pgid` has no running member; false when `timeoutMs` passes first. */
export function waitGroupGone(pgid: number, timeoutMs: number): Promise<boolean> {
  return waitUntilGone(() => livingGroupMembers(pgid), timeoutMs);
}

function signalPid(pid: number, signal: NodeJS.Signals): void {
  if (!isRunning(readStat(pid))) return;
  try {
    process.kill(pid, signal);
  } catch {
    // Gone meanwhile.
  }
}
