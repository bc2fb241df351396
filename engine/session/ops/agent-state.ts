/**
 * The ops on an agent's own state, for backends that keep it (neo's agent): undo the last turn's
 * file writes, reset the conversation, read the checklist; and list-sessions, the recorded
 * sessions of a working directory that a start can continue (resumeSessionId).
 */
import { resolve } from 'node:path';
import type {
  ChecklistInput,
  ChecklistResult,
  ListSessionsInput,
  ListSessionsResult,
  ResetInput,
  ResetResult,
  UndoInput,
  UndoResult,
} from '../contract.js';
import { SessionRejection, sessionNotActive } from '../errors.js';
import type { LiveSession } from '../live-session.js';
import { isLiveState } from '../machine.js';
import { isOrphaned } from '../store/record.js';
import { NeoError } from '../../util/errors.js';
import { liveSession, type OpContext } from './context.js';
import { defined } from '../../util/defined.js';

export async function undo(ctx: OpContext, input: UndoInput): Promise<UndoResult> {
  const session = await idleSession(ctx, input.sessionId, 'undo');
  const agent = session.agent;
  if (agent.undo === undefined) throw unsupported(session, 'undo', 'it does not track its edits');
  const report = await asRejection(() => agent.undo!());
  // The undo is on record as itself: the next turn's diff holds the agent's changes only.
  await session.rebaseDiff();
  await session.emit({ type: 'undo', turn: report.turn, restored: report.restored });
  ctx.log.info('code_session_undo', { sessionId: session.id, restored: report.restored.length });
  return { ok: true, restored: report.restored, turn: report.turn };
}

export async function reset(ctx: OpContext, input: ResetInput): Promise<ResetResult> {
  const session = await idleSession(ctx, input.sessionId, 'reset');
  const agent = session.agent;
  if (agent.reset === undefined) throw unsupported(session, 'reset', 'its conversation lives in the agent CLI');
  await asRejection(() => agent.reset!());
  await session.emit({ type: 'reset' });
  ctx.log.info('code_session_reset', { sessionId: session.id });
  return { ok: true };
}

export async function checklist(ctx: OpContext, input: ChecklistInput): Promise<ChecklistResult> {
  const session = await liveSession(ctx, input.sessionId);
  return { items: session.agent.checklist?.() ?? [] };
}

export async function listSessions(ctx: OpContext, input: ListSessionsInput): Promise<ListSessionsResult> {
  const cwd = resolve(ctx.defaultCwd, input.cwd ?? '.');
  const live = new Set(ctx.registry.liveSessions().map((s) => s.id));
  const records = (await ctx.registry.store.list()).filter(
    (r) => r.cwd === cwd && (input.backend === undefined || r.backendId === input.backend),
  );
  const sessions = records.slice(0, input.limit ?? records.length).map((r) => ({
    sessionId: r.sessionId,
    backend: r.backendId,
    cwd: r.cwd,
    status: isOrphaned(r) ? 'orphaned' : r.status,
    createdAt: r.createdAt,
    updatedAt: r.updatedAt,
    brief: r.taskBrief,
    rounds: r.roundsElapsed,
    live: live.has(r.sessionId),
    ...defined({ resumeSessionId: r.runs.findLast((run) => run.externalSessionId !== undefined)?.externalSessionId }),
  }));
  return { sessions };
}

/** The caller's live session with no turn running (undo and reset change what a turn works on). */
async function idleSession(ctx: OpContext, sessionId: string, op: string): Promise<LiveSession> {
  const session = await liveSession(ctx, sessionId);
  if (!isLiveState(session.state)) throw sessionNotActive(session.id, session.state);
  if (session.state === 'running')
    throw new SessionRejection('SESSION_BUSY', `cannot ${op} session \`${session.id}\` while its turn runs`, {
      hint: 'read the turn to its end (`neo session read`) or interrupt it first',
    });
  return session;
}

function unsupported(session: LiveSession, op: string, why: string): SessionRejection {
  return new SessionRejection('SESSION_OP_UNSUPPORTED', `backend \`${session.backendId}\` cannot ${op}: ${why}`, {
    hint: 'undo, reset and the checklist are neo’s own agent’s (--backend neo)',
  });
}

/** The agent's typed refusals (nothing to undo, a file changed since) reach the caller as rejections. */
async function asRejection<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    if (error instanceof NeoError && !(error instanceof SessionRejection))
      throw new SessionRejection(error.code, error.message, defined({ hint: error.hint }));
    throw error;
  }
}
