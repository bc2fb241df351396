/**
 * The owner's approvals of T2/T3 capabilities: NEO_HOME/capabilities/ledger.json. Each approval
 * is bound to the entry's pinned identity (catalog.ts): a pin bump, or a change to what the entry
 * runs, no longer matches and the owner is asked again. Every approval carries a MAC made with
 * the store key (util/store-key.ts), which never enters a sandbox: an approval that anything but
 * `neo capabilities approve` wrote — a step that reached NEO_HOME, a copy from another home — does
 * not count. The ledger lives in NEO_HOME only; nothing in a project (trusted or not) approves.
 */
import { join } from 'node:path';
import { readJsonOrNull, writeJsonAtomic } from '../util/atomic-file.js';
import { macMatches, macOf, storeKey } from '../util/store-key.js';
import { KeyedLock } from '../util/keyed-lock.js';

const lock = new KeyedLock();

export interface Approval {
  identity: string;
  approvedAt: string;
  by: string;
  mac: string;
}

interface LedgerFile {
  version: 1;
  approvals: Record<string, Approval>;
}

const DOMAIN = 'neo.capability-approval.v1';

export function ledgerPath(home: string): string {
  return join(home, 'capabilities', 'ledger.json');
}

async function readLedger(home: string): Promise<LedgerFile> {
  const file = await readJsonOrNull<LedgerFile>(ledgerPath(home));
  if (file === null || typeof file.approvals !== 'object' || file.approvals === null)
    return { version: 1, approvals: {} };
  return file;
}

/** The approval of `id` whose MAC checks, whatever identity it names. */
export async function approvalOf(home: string, id: string): Promise<Approval | undefined> {
  const approval = (await readLedger(home)).approvals[id];
  if (approval === undefined || typeof approval.identity !== 'string') return undefined;
  const sealed = macMatches(
    storeKey(home),
    approval.mac,
    DOMAIN,
    id,
    approval.identity,
    approval.approvedAt,
    approval.by,
  );
  return sealed ? approval : undefined;
}

/** Whether the owner approved `id` at exactly `identity`. */
export async function isApproved(home: string, id: string, identity: string): Promise<boolean> {
  return (await approvalOf(home, id))?.identity === identity;
}

/** Records the owner's approval of `id` at `identity` (replacing an older one). */
export async function approve(
  home: string,
  id: string,
  identity: string,
  by: string,
  now = new Date(),
): Promise<Approval> {
  const approvedAt = now.toISOString();
  const approval = { identity, approvedAt, by, mac: macOf(storeKey(home), DOMAIN, id, identity, approvedAt, by) };
  await lock.run(ledgerPath(home), async () => {
    const file = await readLedger(home);
    file.approvals[id] = approval;
    await writeJsonAtomic(ledgerPath(home), file);
  });
  return approval;
}

/** Removes the approval of `id`; false when there was none. */
export async function revoke(home: string, id: string): Promise<boolean> {
  return lock.run(ledgerPath(home), async () => {
    const file = await readLedger(home);
    if (!Object.hasOwn(file.approvals, id)) return false;
    delete file.approvals[id];
    await writeJsonAtomic(ledgerPath(home), file);
    return true;
  });
}
