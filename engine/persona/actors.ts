/**
 * The persona machine's side effects: each actor runs one code-session op through the session
 * service with the persona's ownership scope (so every start meets the scope constraints), or
 * asks the decider, or runs the check. Nothing here decides anything the machine checks.
 */
import { fromPromise } from 'xstate';
import type { Posture } from '../definitions/index.js';
import type {
  BackendListing,
  CallerContext,
  CodeSessionInput,
  CodeSessionOutputs,
  ReadTurnResult,
  ScopeConstraints,
  SessionLiveEvent,
  StartInput,
} from '../session/index.js';
import type { Checker } from './check.js';
import {
  VERDICT_CODES,
  type Answer,
  type DecideInput,
  type Decider,
  type Judgement,
  type SelectInput,
  type SessionInfo,
  type StartPlan,
  type StartRejection,
  type Verdict,
  type VerifyInput,
} from './decisions.js';
import { UsageError } from '../util/errors.js';
import {
  checkAttemptsLeft,
  type JudgeActorInput,
  type JudgeActorOutput,
  type VerifyActorOutput,
} from './machine-context.js';
import type { PersonaObserver } from './observation.js';
import { defined } from '../util/defined.js';

/** The slice of the session service a persona drives with: the typed op tool and the event seam. */
export interface PersonaSessionPort {
  execute<I extends CodeSessionInput>(input: I, caller: CallerContext): Promise<CodeSessionOutputs[I['op']]>;
  setScopeConstraints(scope: string, constraints: ScopeConstraints): void;
  releaseAllOwnedBy(scope: string): Promise<void>;
  onSessionEvent(listener: (event: SessionLiveEvent) => void): () => void;
}

/** Why a finished answer is refused although the work was judged done (no change, a broken JSON answer). */
export interface Refusal {
  code: string;
  message: string;
}

export interface ActorDeps {
  sessions: PersonaSessionPort;
  caller: CallerContext;
  decider: Decider;
  checker: Checker | undefined;
  cwd: string;
  constraints: ScopeConstraints;
  initialPosture: Posture;
  appendSystemPrompt?: string;
  backendOptions?: Record<string, unknown>;
  observe: PersonaObserver;
  mayContinue?: () => string | undefined;
  /** The caller's last word on work judged done, given the agent's final answer: undefined accepts it. */
  accept?: (text: string) => Promise<Refusal | undefined>;
  /** Ask list-backends before select (false: the decider's start is fixed, a listing is not needed). */
  listBackends: boolean;
  /** Told about each session this persona opened, and each diff and verdict. */
  track: {
    listing: BackendListing[];
    opened(session: SessionInfo): void;
    turn(result: ReadTurnResult): void;
    stopped(session: SessionInfo, verdict: Verdict): void;
  };
}

export function personaActors(d: ActorDeps) {
  const exec = <I extends CodeSessionInput>(input: I) => d.sessions.execute(input, d.caller);
  let rounds = 0;
  return {
    listBackends: fromPromise<BackendListing[], void>(async () => {
      if (!d.listBackends) return [];
      const result = await exec({ op: 'list-backends' });
      d.track.listing = result.backends;
      return result.backends;
    }),
    select: fromPromise<StartPlan, SelectInput>(async ({ input }) => {
      const plan = await d.decider.select(input);
      d.observe({ type: 'selected', plan });
      return plan;
    }),
    start: fromPromise<SessionInfo, StartPlan>(async ({ input: plan }) => {
      registerConstraintsFor(d, plan.backend);
      try {
        const result = await exec(startInput(d, plan));
        const session: SessionInfo = { ...result, cwd: d.cwd };
        d.track.opened(session);
        d.observe({ type: 'started', session });
        return session;
      } catch (error) {
        const e = error as { code?: string; message?: string; hint?: string };
        const rejection: StartRejection = {
          backend: plan.backend ?? 'default',
          code: e.code ?? VERDICT_CODES.startFailed,
          message: e.message ?? String(error),
          ...defined({ hint: e.hint }),
          // A bad request or a CLI that is not installed fails the same way on every try.
          transient: !(error instanceof UsageError) && e.code !== 'TRANSPORT_BINARY_MISSING',
        };
        d.observe({ type: 'rejected', rejection });
        throw Object.assign(new Error(rejection.message), rejection);
      }
    }),
    read: fromPromise<ReadTurnResult, SessionInfo>(async ({ input: session }) => {
      const result = await exec({ op: 'read-turn', sessionId: session.sessionId, includeDiff: true });
      if (result.kind === 'turn_complete') rounds++;
      d.track.turn(result);
      d.observe({
        type: 'turn',
        kind: result.kind,
        round: rounds,
        ...('turnDiff' in result && result.turnDiff !== undefined ? { summary: result.turnDiff.summaryLine } : {}),
      });
      return result;
    }),
    decide: fromPromise<Answer, DecideInput>(async ({ input }) => d.decider.decide(input)),
    answer: fromPromise<void, DecideInput & { answer: Answer }>(async ({ input }) => {
      const { clarification, session, answer } = input;
      await exec({
        op: 'answer',
        sessionId: session.sessionId,
        clarificationId: clarification.clarificationId,
        allow: answer.allow,
        reason: answer.reason,
        ...defined({ note: answer.note }),
      });
      d.observe({ type: 'answered', toolName: clarification.toolName, answer });
    }),
    judge: fromPromise<JudgeActorOutput, JudgeActorInput>(async ({ input, signal }) => {
      const check = await runCheck(d, signal);
      const attemptsLeft =
        check === undefined || check.passed || checkAttemptsLeft(input.failedChecks, input.maxCheckAttempts);
      let judgement: Judgement = await d.decider.judge({
        turn: input.turn,
        session: input.session,
        attemptsLeft,
        attempt: input.failedChecks + 1,
        ...defined({ check }),
      });
      const stopWhy = judgement.kind === 'guide' ? d.mayContinue?.() : undefined;
      if (stopWhy !== undefined)
        judgement = { kind: 'stop', outcome: 'aborted', note: stopWhy, code: VERDICT_CODES.budgetSpent };
      if (judgement.kind === 'stop' && judgement.outcome === 'success') {
        const refused = await d.accept?.(input.turn.text);
        if (refused !== undefined)
          judgement = { kind: 'stop', outcome: 'failed', note: refused.message, code: refused.code };
      }
      d.observe({ type: 'judged', judgement });
      return { judgement, ...defined({ check }) };
    }),
    guide: fromPromise<void, { session: SessionInfo; judgement: Extract<Judgement, { kind: 'guide' }> }>(
      async ({ input }) => {
        const j = input.judgement;
        await exec({
          op: 'guide',
          sessionId: input.session.sessionId,
          text: j.text,
          ...defined({ agentModel: j.agentModel, effort: j.effort }),
        });
      },
    ),
    verify: fromPromise<VerifyActorOutput, VerifyInput>(async ({ input, signal }) => {
      const t = input.terminal;
      const worthChecking = (t.kind === 'ended' && t.ok) || t.kind === 'max_rounds';
      const check = worthChecking ? await runCheck(d, signal) : undefined;
      let verdict = await d.decider.verify({ ...input, ...defined({ check }) });
      if (verdict.outcome === 'success') {
        const refused = await d.accept?.('text' in t ? t.text : '');
        if (refused !== undefined)
          verdict = { outcome: 'failed', note: refused.message, failureReason: refused.message, code: refused.code };
      }
      return { verdict, ...defined({ check }) };
    }),
    stop: fromPromise<void, { session: SessionInfo; verdict: Verdict; interruptTurn: boolean }>(async ({ input }) => {
      d.track.stopped(input.session, input.verdict);
      if (input.interruptTurn) {
        // Best effort: the turn may have ended meanwhile, and the stop below releases it anyway.
        await exec({ op: 'interrupt', sessionId: input.session.sessionId }).catch(() => undefined);
      }
      await exec({
        op: 'stop',
        sessionId: input.session.sessionId,
        outcome: input.verdict.outcome,
        note: input.verdict.note,
      });
    }),
  };
}

async function runCheck(d: ActorDeps, signal: AbortSignal) {
  if (d.checker === undefined) return undefined;
  d.observe({ type: 'notice', level: 'info', message: `checking: ${d.checker.command}` });
  const check = await d.checker.run(signal);
  d.observe({ type: 'checked', check });
  return check;
}

/**
 * A tool list is never sent to a backend that cannot enforce one (seed 004 §2 step 3): for such
 * a backend the scope's allowedTools are left out of its constraints and reported; the posture
 * ceiling still holds.
 */
function registerConstraintsFor(d: ActorDeps, backend: string | undefined): void {
  const tools = d.constraints.allowedTools;
  const descriptor = d.track.listing.find((l) => l.id === backend)?.descriptor;
  if (tools !== undefined && descriptor !== undefined && !descriptor.honorsAllowedTools) {
    const { allowedTools: _unenforceable, ...rest } = d.constraints;
    d.sessions.setScopeConstraints(d.caller.scope, rest);
    d.observe({
      type: 'notice',
      level: 'warning',
      message: `backend ${backend} cannot enforce a tool list; allowedTools (${tools.join(', ')}) are not sent, the posture ceiling still applies`,
    });
    return;
  }
  d.sessions.setScopeConstraints(d.caller.scope, d.constraints);
}

function startInput(d: ActorDeps, plan: StartPlan): StartInput {
  const appendSystemPrompt = plan.appendSystemPrompt ?? d.appendSystemPrompt;
  return {
    op: 'start',
    brief: plan.brief,
    ...defined({ backend: plan.backend }),
    cwd: d.cwd,
    // The ceiling is the scope's (registered above): a start repeats it only when it asks for less.
    ...defined({ maxPosture: plan.maxPosture }),
    initialPosture: plan.initialPosture ?? d.initialPosture,
    ...defined({
      maxRounds: plan.maxRounds,
      agentModel: plan.agentModel,
      effort: plan.effort,
      allowedTools: plan.allowedTools,
    }),
    ...(appendSystemPrompt === undefined || appendSystemPrompt === '' ? {} : { appendSystemPrompt }),
    ...(plan.taskTags.length === 0 ? {} : { taskTags: plan.taskTags }),
    ...defined({ backendOptions: d.backendOptions }),
  };
}
