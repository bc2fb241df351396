/**
 * Whether a session can be steered now: the one answer every route and page uses. A session is
 * `live` only while a process holds it (this server, or a process attached to it) *and* its
 * lifecycle is live — an agent that ended itself is `held` (it still has an owner to release
 * it, but nothing to steer) until it is stopped or released. A record nobody holds is `none`:
 * what its record says it is (ended, failed, or orphaned when the process that ran it is gone).
 */
import { isLiveState, isOrphaned, type CodeSessionRecord, type SessionService } from '../session/index.js';
import type { AttachServer } from './attach/server.js';

/** What tells who holds a session: this server's registry and the processes attached to it. */
export interface SessionHolders {
  service: Pick<SessionService, 'registry'>;
  attach: Pick<AttachServer, 'ownerOfSession'>;
}

export type Liveness = 'live' | 'held' | 'none';

/** Where a session is held: `here` (this server's registry), `attached` (a flow or persona process), or nowhere. */
export type Holder = 'here' | 'attached' | undefined;

export function holderOf(ctx: SessionHolders, sessionId: string): Holder {
  if (ctx.service.registry.find(sessionId) !== undefined) return 'here';
  return ctx.attach.ownerOfSession(sessionId) !== undefined ? 'attached' : undefined;
}

/**
 * The session's liveness. A session held here answers from its machine's state; one held by an
 * attached process from its record, which that process patches on every transition.
 */
export function livenessOf(ctx: SessionHolders, sessionId: string, record: CodeSessionRecord | null): Liveness {
  const here = ctx.service.registry.find(sessionId);
  if (here !== undefined) return isLiveState(here.state) ? 'live' : 'held';
  if (ctx.attach.ownerOfSession(sessionId) === undefined) return 'none';
  // `orphaned` says its process is gone; a process that holds it and is attached says otherwise,
  // and is believed (a sweep that ran while it was between servers).
  return record !== null && ['running', 'idle', 'orphaned'].includes(record.status) ? 'live' : 'held';
}

/** The record as a person should see it: recorded live by a process that is gone reads `orphaned`, and one a live process holds never does. */
export function shownRecord(record: CodeSessionRecord, liveness: Liveness): CodeSessionRecord {
  if (liveness === 'live' && record.status === 'orphaned') return { ...record, status: 'running' };
  return liveness === 'none' && record.status !== 'orphaned' && isOrphaned(record)
    ? { ...record, status: 'orphaned' }
    : record;
}
