/**
 * Stops what a dead neo left running. Every neo process that starts processes keeps a journal of
 * their groups (registry.ts); a journal whose owner is no longer the same running process
 * belongs to a neo that died without stopping them (kill -9, an OOM kill, a power cut of its
 * terminal). Its groups — checked to still be the ones it started — and every process carrying
 * its tag are killed, and the journal is removed.
 */
import { readdir, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { isSameProcess } from './identity.js';
import { isOurGroup, killTree, type GroupRecord } from './process-group.js';
import { journalFolder, ownerId, type JournalOwner } from './registry/index.js';

/** One dead owner whose leftovers were stopped. */
export interface SweptOwner {
  owner: JournalOwner['owner'];
  command: string;
  /** The groups that were still running and were killed. */
  groups: Array<Pick<GroupRecord, 'pgid' | 'label'>>;
}

/** Kills the leftovers of every dead neo journaled under `home`; returns whose were found. */
export async function sweepOrphanedProcesses(home: string, graceMs = 1_000): Promise<SweptOwner[]> {
  const dir = journalFolder(home);
  let names: string[];
  try {
    names = await readdir(dir);
  } catch {
    return [];
  }
  const swept: SweptOwner[] = [];
  for (const name of names) {
    // The name is the owner's identity: a live owner's journal is not even read.
    const named = /^(\d+)-(\d+)\.jsonl$/.exec(name);
    if (named === null) continue;
    const owner = { pid: Number(named[1]), ...(named[2] === '0' ? {} : { start: Number(named[2]) }) };
    if (isSameProcess(owner)) continue;
    const path = join(dir, name);
    const journal = await readJournal(path);
    const alive = (journal?.groups ?? []).filter(isOurGroup);
    await Promise.all([
      ...alive.map((group) => killTree({ pgid: group.pgid, tag: group.tag }, graceMs)),
      // Processes that left their group (or whose group was never written down) by the owner's tag.
      killTree({ tag: `${ownerId(owner)}/` }, graceMs),
    ]);
    await rm(path, { force: true });
    if (alive.length > 0)
      swept.push({
        owner,
        command: journal?.header.command ?? 'neo',
        groups: alive.map((g) => ({ pgid: g.pgid, label: g.label })),
      });
  }
  return swept;
}

async function readJournal(path: string): Promise<{ header: JournalOwner; groups: GroupRecord[] } | undefined> {
  const text = await readFile(path, 'utf8').catch(() => '');
  const lines = text.split('\n').filter((line) => line.trim() !== '');
  const parsed = lines.flatMap((line) => {
    try {
      return [JSON.parse(line) as unknown];
    } catch {
      return []; // a torn last line: the owner died mid-write
    }
  });
  const header = parsed[0] as JournalOwner | undefined;
  if (header?.owner === undefined || typeof header.owner.pid !== 'number') return undefined;
  const groups = parsed
    .slice(1)
    .filter(
      (g): g is GroupRecord =>
        typeof (g as GroupRecord).pgid === 'number' && typeof (g as GroupRecord).tag === 'string',
    );
  return { header, groups };
}
