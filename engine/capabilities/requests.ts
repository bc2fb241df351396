/**
 * Owner-approval requests for deferred T2/T3 capabilities, kept beside the flows' approvals
 * (NEO_HOME/approvals/capabilities/<id>.json) and listed by the same inbox (`neo serve`'s
 * /api/approvals, the web Approvals page). A session never waits for one: it files the request
 * and starts without the capability; a later session picks it up once `neo capabilities approve`
 * (or the inbox) approved it. A declined request is kept, so the same identity is not asked again
 * until its pin changes.
 */
import { readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { readJsonOrNull, writeJsonAtomic } from '../util/atomic-file.js';
import { sourceLabel, type CatalogEntry } from './catalog.js';
import { isApproved } from './ledger.js';
import { tokenScopeNote } from './token-scope.js';

export interface CapabilityRequest {
  id: string;
  identity: string;
  tier: string;
  source: string;
  prompt: string;
  detail: string;
  /** The project that asked first and the session that was started without it. */
  project: string;
  sessionId?: string;
  requestedAt: string;
  /** Set by a decline: this identity is not asked about again. */
  declinedAt?: string;
}

/** A catalog id (the schemas' `id`): safe as a file name. */
export function isCapabilityId(id: string): boolean {
  return /^[A-Za-z0-9][A-Za-z0-9._-]*$/.test(id);
}

function requestsDir(home: string): string {
  return join(home, 'approvals', 'capabilities');
}

function requestPath(home: string, id: string): string {
  if (!isCapabilityId(id)) throw new Error(`not a capability id: ${id}`);
  return join(requestsDir(home), `${id}.json`);
}

/** Files a request for `entry` unless one for the same identity is already open or declined. */
export async function fileRequest(
  home: string,
  entry: CatalogEntry,
  identity: string,
  context: { project: string; sessionId?: string; evidence: string[] },
): Promise<'filed' | 'open' | 'declined'> {
  const existing = await readRequest(home, entry.id);
  if (existing?.identity === identity) return existing.declinedAt === undefined ? 'open' : 'declined';
  const caveat = tokenScopeNote(entry);
  const request: CapabilityRequest = {
    id: entry.id,
    identity,
    tier: entry.data.trustTier,
    source: sourceLabel(entry.data),
    prompt: `Approve capability ${entry.id} (${entry.data.trustTier}, ${sourceLabel(entry.data)}) for code sessions?`,
    detail: [
      entry.data.description.trim(),
      `detected in ${context.project}: ${context.evidence.join('; ')}`,
      ...(caveat === undefined ? [] : [caveat]),
      `answer with: neo capabilities approve ${entry.id}   (or: neo capabilities revoke ${entry.id} to decline)`,
    ].join('\n'),
    project: context.project,
    ...(context.sessionId === undefined ? {} : { sessionId: context.sessionId }),
    requestedAt: new Date().toISOString(),
  };
  await writeJsonAtomic(requestPath(home, entry.id), request);
  return 'filed';
}

export async function readRequest(home: string, id: string): Promise<CapabilityRequest | undefined> {
  return (await readJsonOrNull<CapabilityRequest>(requestPath(home, id))) ?? undefined;
}

/** Open requests (not declined, not approved at their identity since), oldest first. */
export async function openRequests(home: string): Promise<CapabilityRequest[]> {
  const names = await readdir(requestsDir(home)).catch(() => [] as string[]);
  const open: CapabilityRequest[] = [];
  for (const name of names) {
    const id = name.endsWith('.json') ? name.slice(0, -5) : '';
    if (!isCapabilityId(id)) continue;
    const request = await readRequest(home, id);
    if (request === undefined || request.declinedAt !== undefined) continue;
    if (await isApproved(home, id, request.identity)) continue;
    open.push(request);
  }
  return open.sort((a, b) => a.requestedAt.localeCompare(b.requestedAt));
}

/** Closes the request of `id` (approved: removed; declined: kept, marked). */
export async function closeRequest(home: string, id: string, how: 'approved' | 'declined'): Promise<void> {
  if (how === 'approved') {
    await rm(requestPath(home, id), { force: true });
    return;
  }
  const request = await readRequest(home, id);
  if (request !== undefined)
    await writeJsonAtomic(requestPath(home, id), { ...request, declinedAt: new Date().toISOString() });
}
