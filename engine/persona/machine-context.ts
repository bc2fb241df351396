/**
 * The persona machine's context, outcome and actor contracts, and the pure rules its
 * transitions apply (how a verdict of failure or abort reads, what a check run adds, what a
 * rejected start records); the statechart itself is machine.ts.
 */
import type { ReadTurnResult, BackendListing } from '../session/index.js';
import {
  VERDICT_CODES,
  type Answer,
  type CheckResult,
  type Judgement,
  type SessionInfo,
  type StartPlan,
  type StartRejection,
  type TurnComplete,
  type Verdict,
} from './decisions.js';
import { defined } from '../util/defined.js';

export interface PersonaMachineInput {
  /** A verify command exists (the flow step's gate or the persona's `rules.verify`). */
  hasCheck: boolean;
  /** Runs of a failing check before the verdict is `failed` (a flow gate's attempts); 0: until the rounds run out. */
  maxCheckAttempts: number;
  /** Starts to try before giving up (each rejection goes back to select). */
  maxStartAttempts: number;
  /** Success needs a passing check (a driver); false: a flow step without a gate, whose flow proves it. */
  requireCheck: boolean;
}

export interface PersonaContext extends PersonaMachineInput {
  listing: BackendListing[];
  rejections: StartRejection[];
  plan?: StartPlan;
  session?: SessionInfo;
  turn?: ReadTurnResult;
  answer?: Answer;
  judgement?: Judgement;
  /** The last check run. */
  check?: CheckResult;
  checkRuns: number;
  failedChecks: number;
  verdict?: Verdict;
  /** Finished turns read. */
  rounds: number;
  clarifications: number;
  /** The agent's last answer text. */
  text: string;
  /** An abort came while the agent's turn ran: the stop interrupts it first. */
  interruptTurn?: boolean;
}

/** What the machine settles with. */
export interface PersonaOutcome {
  verdict: Verdict;
  plan?: StartPlan;
  session?: SessionInfo;
  check?: CheckResult;
  checkRuns: number;
  rounds: number;
  clarifications: number;
  text: string;
  rejections: StartRejection[];
}

/** An abort; `failed`: the drive itself failed (its agent went silent), nobody stopped it. */
export type PersonaEvent = { type: 'abort'; reason: string; failed?: { code: string } };

export interface JudgeActorInput {
  turn: TurnComplete;
  session: SessionInfo;
  /** Failed checks so far. */
  failedChecks: number;
  maxCheckAttempts: number;
}

export interface JudgeActorOutput {
  judgement: Judgement;
  check?: CheckResult;
}

export interface VerifyActorOutput {
  verdict: Verdict;
  check?: CheckResult;
}

/** Whether a failed check may go back as guidance once more. */
export function checkAttemptsLeft(failedChecksBefore: number, maxCheckAttempts: number): boolean {
  return maxCheckAttempts <= 0 || failedChecksBefore + 1 < maxCheckAttempts;
}

export const failure = (reason: string, code: string = VERDICT_CODES.failed, transient?: boolean): Verdict => ({
  outcome: 'failed',
  note: reason,
  failureReason: reason,
  code,
  ...defined({ transient }),
});
export const aborted = (event: PersonaEvent): Verdict =>
  event.failed === undefined
    ? { outcome: 'aborted', note: event.reason, failureReason: event.reason, code: VERDICT_CODES.aborted }
    : failure(event.reason, event.failed.code, true);
export const errorText = (error: unknown): string => (error instanceof Error ? error.message : String(error));

export function checked(
  context: PersonaContext,
  check: CheckResult | undefined,
): Pick<PersonaContext, 'checkRuns' | 'failedChecks'> & { check?: CheckResult } {
  if (check === undefined) return { checkRuns: context.checkRuns, failedChecks: context.failedChecks };
  return { check, checkRuns: context.checkRuns + 1, failedChecks: context.failedChecks + (check.passed ? 0 : 1) };
}

export function rejectionOf(backend: string | undefined, error: unknown): StartRejection {
  const e = error as { code?: unknown; message?: unknown; hint?: unknown; transient?: unknown };
  return {
    backend: backend ?? 'default',
    code: typeof e?.code === 'string' ? e.code : VERDICT_CODES.startFailed,
    message: typeof e?.message === 'string' ? e.message : String(error),
    ...(typeof e?.hint === 'string' ? { hint: e.hint } : {}),
    ...(typeof e?.transient === 'boolean' ? { transient: e.transient } : {}),
  };
}
