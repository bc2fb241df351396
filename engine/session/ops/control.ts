/** The ops that steer a live session: answer, guide, set-posture, interrupt, stop. */
import type {
  AnswerInput,
  AnswerResult,
  GuideInput,
  GuideResult,
  InterruptInput,
  InterruptResult,
  SetPostureInput,
  SetPostureResult,
  StopInput,
  StopResult,
} from '../contract.js';
import { SessionRejection, sessionNotActive, sessionNotFound } from '../errors.js';
import { isLiveState } from '../machine.js';
import { METRICS } from '../metrics.js';
import { resolveGuideSwitch } from '../../routing/index.js';
import { checkSetPosture } from '../posture-rules.js';
import { deliverDurably, postureChanged, recordDriverGuidance, resolveClarification } from '../delivery.js';
import { liveSession, type OpContext } from './context.js';
import { defined } from '../../util/defined.js';

/** Resolves the pending clarification; a deny's reason is carried into the next turn's guidance. */
export async function answer(ctx: OpContext, input: AnswerInput): Promise<AnswerResult> {
  const session = await liveSession(ctx, input.sessionId);
  const decision = {
    allow: input.allow,
    ...defined({ reason: input.reason, note: input.note }),
  };
  const { toolName } = await resolveClarification(
    ctx.registry,
    session.id,
    ctx.caller.scope,
    input.clarificationId,
    decision,
  );
  ctx.metrics.increment(METRICS.answers, { allow: String(input.allow) });
  ctx.log.info('code_session_clarification_answered', {
    sessionId: session.id,
    clarificationId: input.clarificationId,
    allow: input.allow,
  });
  const clarification: AnswerResult['clarification'] = {
    clarificationId: input.clarificationId,
    toolName,
    allow: input.allow,
  };
  if (input.reason !== undefined) clarification.reason = input.reason;
  return { ok: true, clarification };
}

/** Queues next-turn guidance, with a model/effort switch only for per-turn backends. */
export async function guide(ctx: OpContext, input: GuideInput): Promise<GuideResult> {
  const session = await liveSession(ctx, input.sessionId);
  const request: { agentModel?: string; effort?: GuideInput['effort'] } = {};
  if (input.agentModel !== undefined) request.agentModel = input.agentModel;
  if (input.effort !== undefined) request.effort = input.effort;
  const switchTo = resolveGuideSwitch(session.backendId, session.descriptor, request);
  await recordDriverGuidance(
    ctx.registry,
    session.id,
    ctx.caller.scope,
    input.text,
    switchTo !== undefined && Object.keys(switchTo).length > 0 ? switchTo : undefined,
  );
  ctx.log.info('code_session_guide', { sessionId: session.id });
  return { ok: true };
}

/** Changes the posture within the ceiling fixed at start; above it is rejected, never clamped. */
export async function setPosture(ctx: OpContext, input: SetPostureInput): Promise<SetPostureResult> {
  const session = await liveSession(ctx, input.sessionId);
  try {
    if (!isLiveState(session.state)) throw sessionNotActive(session.id, session.state);
    if (session.descriptor.liveControl?.setPosture === false) {
      throw new SessionRejection(
        'SESSION_POSTURE_LOCKED',
        `backend \`${session.backendId}\` cannot change posture mid-session`,
        { hint: 'choose the posture at start' },
      );
    }
    checkSetPosture(session.backendId, session.descriptor, session.snapshot.context.maxPosture, input.posture);
    session.send({ type: 'op.set_posture', posture: input.posture });
    // The machine's guard is the second lock on the same door.
    if (session.snapshot.context.posture !== input.posture) {
      throw new SessionRejection(
        'POSTURE_CEILING_EXCEEDED',
        `posture \`${input.posture}\` was refused by the session's ceiling`,
      );
    }
  } catch (error) {
    ctx.metrics.increment(METRICS.postureChanges, { outcome: 'rejected' });
    ctx.log.warn('code_session_posture_rejected', { sessionId: session.id, posture: input.posture });
    throw error;
  }
  const recorded = postureChanged(ctx.registry, session, input.posture);
  await deliverDurably(session, () => session.agent.setPosture(input.posture));
  await recorded;
  ctx.metrics.increment(METRICS.postureChanges, { outcome: 'ok' });
  ctx.log.info('code_session_posture_set', { sessionId: session.id, posture: input.posture });
  return { ok: true, posture: input.posture };
}

/** Aborts the current turn; the session stays open for guidance. */
export async function interrupt(ctx: OpContext, input: InterruptInput): Promise<InterruptResult> {
  const session = await liveSession(ctx, input.sessionId);
  if (!isLiveState(session.state)) throw sessionNotActive(session.id, session.state);
  if (session.descriptor.liveControl?.interrupt === false) {
    throw new SessionRejection(
      'SESSION_INTERRUPT_UNSUPPORTED',
      `backend \`${session.backendId}\` cannot abort a turn`,
      { hint: 'stop the session instead' },
    );
  }
  session.emit({ type: 'interrupt' });
  session.dropPending();
  session.send({ type: 'op.interrupt' });
  await deliverDurably(session, () => session.agent.interrupt());
  ctx.log.info('code_session_interrupt', { sessionId: session.id });
  return { ok: true };
}

/** Releases the session with the driver's verdict. Idempotent for the caller's own sessions. */
export async function stop(ctx: OpContext, input: StopInput): Promise<StopResult> {
  const session = ctx.registry.find(input.sessionId);
  const verdict = defined({ outcome: input.outcome, note: input.note });
  if (session !== undefined && session.ownerScope === ctx.caller.scope) {
    if (ctx.registry.isReleasing(session.id)) {
      await ctx.registry.release(session, 'explicit');
      return { ok: true, alreadyStopped: true };
    }
    await ctx.registry.release(session, 'explicit', verdict);
    return { ok: true, alreadyStopped: false };
  }
  if (await ctx.registry.wasReleasedBy(input.sessionId, ctx.caller.scope)) return { ok: true, alreadyStopped: true };
  throw sessionNotFound(input.sessionId);
}
