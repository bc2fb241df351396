/**
 * Telling a live session's agent what its driver or a person decided (an answer, guidance, a
 * posture, an interrupt). The event that records it is queued first, in the session's single FIFO
 * appender, and the op is acknowledged only once the agent was told and the event is written.
 */
import type { Effort, Posture } from '../definitions/index.js';
import { SessionRejection, sessionNotActive, sessionNotFound } from './errors.js';
import type { LiveSession } from './live-session.js';
import { isLiveState } from './machine.js';
import type { SessionRegistry } from './registry.js';
import { defined } from '../util/defined.js';

/**
 * Answers a pending clarification by id: the machine and the pinned history first (so the
 * answer is on record before the agent resumes), then the transport.
 */
export async function resolveClarification(
  registry: SessionRegistry,
  sessionId: string,
  scope: string,
  clarificationId: string,
  decision: { allow: boolean; reason?: string; note?: string },
): Promise<{ toolName: string }> {
  const session = registry.get(sessionId, scope);
  if (session.pendingClarification(clarificationId) === undefined) {
    throw new SessionRejection(
      'SESSION_UNKNOWN_CLARIFICATION',
      `code session \`${sessionId}\` has no pending clarification \`${clarificationId}\``,
      {
        hint: 'answer the clarificationId the last read-turn returned; an interrupt or a finished turn drops pending questions',
      },
    );
  }
  const pending = session.recordAnswer(clarificationId, decision, scope);
  await deliverDurably(session, () =>
    session.agent.answer(clarificationId, {
      allow: decision.allow,
      ...defined({ reason: decision.reason }),
    }),
  );
  return pending;
}

/** The driver's next-turn guidance (not part of the round history: that tracks the agent). */
export async function recordDriverGuidance(
  registry: SessionRegistry,
  sessionId: string,
  scope: string,
  text: string,
  switchTo?: { model?: string; effort?: Effort },
): Promise<void> {
  await guide(registry.get(sessionId, scope), text, 'driver', switchTo);
}

/**
 * A person's guidance (the control plane): pinned into the round history so the driver sees
 * it, then delivered. Reaches any live session regardless of owner.
 */
export async function injectUserGuidance(registry: SessionRegistry, sessionId: string, text: string): Promise<void> {
  const session = registry.find(sessionId);
  if (session === undefined) {
    if ((await registry.store.get(sessionId)) !== null) {
      throw new SessionRejection('SESSION_NOT_LIVE', `code session \`${sessionId}\` is not live in this process`, {
        hint: 'resume it first',
      });
    }
    throw sessionNotFound(sessionId);
  }
  await guide(session, text, 'user');
}

async function guide(
  session: LiveSession,
  text: string,
  source: 'driver' | 'user',
  switchTo?: { model?: string; effort?: Effort },
): Promise<void> {
  if (!isLiveState(session.state)) throw sessionNotActive(session.id, session.state);
  const composed = session.composeGuidance(text, source, switchTo);
  session.send({ type: 'op.guide' });
  await deliverDurably(session, () => session.agent.sendGuidance(composed, switchTo));
}

/** Records the posture a session now runs at (its meta and a `posture` event). */
export function postureChanged(registry: SessionRegistry, session: LiveSession, posture: Posture): Promise<unknown> {
  session.emit({ type: 'posture', mode: posture });
  return registry.store.patchMeta(session.id, { posture });
}

/**
 * Tells the agent while the event that records it is being written, and resolves only once both
 * are done: the line is already queued in the session's single FIFO appender, so whatever the
 * agent does next lands after it on disk (the log stays a prefix of what happened), and the op
 * acknowledges nothing that is not durable.
 */
export async function deliverDurably(session: LiveSession, deliver: () => Promise<void>): Promise<void> {
  const written = session.durable();
  await deliver();
  await written;
}
