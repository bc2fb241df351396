/**
 * Capability approval requests in the approvals inbox: listed with the flows' approvals and
 * answered the same way (approve or decline). An answer is checked against the catalog the
 * server has now: what is approved is the entry's current pinned identity, and only when the
 * request asked for exactly that one (an older request after a pin bump must be asked again).
 */
import {
  approve,
  catalogEntries,
  closeRequest,
  isCapabilityId,
  openRequests,
  pinnedIdentity,
  readRequest,
  revoke,
} from '../capabilities/index.js';
import type { DefinitionSet } from '../definitions/index.js';
import { UsageError } from '../util/errors.js';

/** The pseudo run id under which capability requests appear in the inbox. */
export const CAPABILITY_INBOX_RUN = 'capabilities';

/** Open requests as inbox items (the shape of approvals.ts's InboxItem). */
export async function capabilityInboxItems(home: string) {
  return (await openRequests(home)).map((request) => ({
    kind: 'capability' as const,
    runId: CAPABILITY_INBOX_RUN,
    key: request.id,
    prompt: request.prompt,
    detail: request.detail,
    decisions: [
      { id: 'approve', label: 'Approve', fail: false },
      { id: 'decline', label: 'Decline', fail: true },
    ],
    // No session waits: the next one in the project picks the answer up.
    live: false,
  }));
}

export async function answerCapability(options: {
  home: string;
  set: DefinitionSet;
  id: string;
  decision: string;
  by: string;
}): Promise<{ runId: string; key: string; decision: string; live: boolean }> {
  const { home, id, decision } = options;
  const request = isCapabilityId(id) ? await readRequest(home, id) : undefined;
  const entry = catalogEntries(options.set).find((e) => e.id === id);
  if (request === undefined || entry === undefined || request.declinedAt !== undefined)
    throw new UsageError('CAPABILITY_NO_REQUEST', `no open approval request for capability \`${id}\``);
  if (decision !== 'approve' && decision !== 'decline')
    throw new UsageError('FLOW_UNKNOWN_DECISION', `\`${decision}\` is not a decision of a capability request`, {
      hint: 'choose one of: approve, decline',
    });
  const identity = pinnedIdentity(entry.data);
  if (request.identity !== identity)
    throw new UsageError('CAPABILITY_PIN_CHANGED', `capability \`${id}\` changed since it was requested`, {
      hint: `it is now ${identity}; the next session that detects it asks again`,
    });
  if (decision === 'approve') {
    await approve(home, id, identity, options.by);
    await closeRequest(home, id, 'approved');
  } else {
    await revoke(home, id);
    await closeRequest(home, id, 'declined');
  }
  return { runId: CAPABILITY_INBOX_RUN, key: id, decision, live: false };
}
