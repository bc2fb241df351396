/**
 * What a persona's deciders decide, as data, and the one rule that keeps verdicts honest. The
 * persona flow machine executes the ops; a decider only proposes (so a decider — a model, a
 * person, or rules — can never skip the checks around it). Pure.
 */
import type { Effort, Posture } from '../definitions/index.js';
import type { BackendListing, ReadTurnResult, StartResult, StopOutcome } from '../session/index.js';

/** Who decides: declarative rules, neo's own agent, or a person. */
export type DeciderKind = 'rules' | 'llm' | 'human';

export type Clarification = Extract<ReadTurnResult, { kind: 'clarification' }>;
export type TurnComplete = Extract<ReadTurnResult, { kind: 'turn_complete' }>;
/** A read-turn result that ends the driving loop. */
export type Terminal = Extract<ReadTurnResult, { kind: 'ended' | 'error' | 'max_rounds' }>;

/** The session to open: select's decision. */
export interface StartPlan {
  /** undefined: the session service's default backend (a flow step that names none). */
  backend?: string;
  /** The turn-1 brief, shaped for that backend. */
  brief: string;
  taskTags: string[];
  agentModel?: string;
  effort?: Effort;
  maxPosture?: Posture;
  initialPosture?: Posture;
  maxRounds?: number;
  allowedTools?: string[];
  appendSystemPrompt?: string;
  /** Why this backend (for the decision log). */
  why: string;
}

/** A start the session service refused, fed back to select. */
export interface StartRejection {
  backend: string;
  code: string;
  message: string;
  hint?: string;
  /** Another start might succeed (not a usage error, not a missing binary). */
  transient?: boolean;
}

/** The answer to one clarification. */
export interface Answer {
  allow: boolean;
  reason: string;
  note?: string;
  /** What decided it (`clarify[2]`, `otherwise`, `llm`, `human (tty)`). */
  by: string;
}

/** After a finished turn: steer the agent again, or stop with a proposed verdict. */
export type Judgement =
  | { kind: 'guide'; text: string; agentModel?: string; effort?: Effort; why: string }
  | { kind: 'stop'; outcome: StopOutcome; note: string; code?: string };

/** The verdict a persona stops its session with. */
export interface Verdict {
  outcome: StopOutcome;
  note: string;
  /** Why it is not a success, in one line. */
  failureReason?: string;
  /** What failed, as a code a caller maps (PERSONA_CHECK_FAILED, a transport's provider code, …). */
  code?: string;
  /** Retrying could help (a provider hiccup, a stall), unlike a rejected key or a failing check. */
  transient?: boolean;
}

/** The failure codes a verdict carries: why a session did not earn success. */
export const VERDICT_CODES = {
  checkFailed: 'PERSONA_CHECK_FAILED',
  maxRounds: 'PERSONA_MAX_ROUNDS',
  agentFailed: 'PERSONA_AGENT_FAILED',
  agentError: 'PERSONA_AGENT_ERROR',
  stalled: 'PERSONA_STALLED',
  notVerified: 'PERSONA_NOT_VERIFIED',
  aborted: 'PERSONA_ABORTED',
  budgetSpent: 'PERSONA_BUDGET_SPENT',
  startFailed: 'PERSONA_START_FAILED',
  failed: 'PERSONA_FAILED',
} as const;

/** One run of the verify command. */
export interface CheckResult {
  command: string;
  passed: boolean;
  exitCode?: number;
  timedOut: boolean;
  /** Why its exit 0 was no pass (its runner's summary missing or short), a whole phrase from `exit 0`. */
  unreported?: string;
  /** The last lines of its output. */
  tail: string;
  flaky?: boolean;
  durationMs: number;
}

/** The session a decision is about. */
export interface SessionInfo extends StartResult {
  cwd: string;
}

export interface SelectInput {
  listing: BackendListing[];
  rejections: StartRejection[];
}

export interface DecideInput {
  clarification: Clarification;
  session: SessionInfo;
}

export interface JudgeInput {
  turn: TurnComplete;
  session: SessionInfo;
  check?: CheckResult;
  /** Whether a failed check may still be sent back as guidance. */
  attemptsLeft: boolean;
  /** 1-based number of this check run. */
  attempt: number;
}

export interface VerifyInput {
  terminal: Terminal;
  session: SessionInfo;
  check?: CheckResult;
}

/** A decider: the pluggable brain of the persona flow machine. */
export interface Decider {
  readonly kind: DeciderKind;
  select(input: SelectInput): Promise<StartPlan>;
  decide(input: DecideInput): Promise<Answer>;
  judge(input: JudgeInput): Promise<Judgement>;
  verify(input: VerifyInput): Promise<Verdict>;
  /** Releases what the decider holds (an agent, a prompt). */
  close?(): Promise<void>;
}

/**
 * The verdict a proposal earns: `success` only when a check exists and its last run passed.
 * Without a verify command nothing proved the work, so the best a driver earns is `partial`
 * (`requireCheck`); a flow step without a gate leaves proving to the flow, so its success
 * stands. With a failing (or missing) check it is `failed`. Other outcomes pass through: a
 * decider may always claim less than success.
 */
export function honestVerdict(
  proposed: Verdict,
  check: CheckResult | undefined,
  hasCheck: boolean,
  requireCheck = true,
): Verdict {
  if (proposed.outcome !== 'success') return proposed;
  if (!hasCheck) {
    if (!requireCheck) return proposed;
    return {
      outcome: 'partial',
      note: `${proposed.note} (not verified: no verify command)`.trim(),
      failureReason: 'not verified: this persona and step have no verify command',
      code: VERDICT_CODES.notVerified,
    };
  }
  if (check === undefined)
    return {
      outcome: 'failed',
      note: proposed.note,
      failureReason: 'the verify command did not run',
      code: VERDICT_CODES.checkFailed,
    };
  if (!check.passed) {
    return {
      outcome: 'failed',
      note: proposed.note,
      failureReason: `the check \`${check.command}\` fails (${checkResultText(check)})`,
      code: VERDICT_CODES.checkFailed,
    };
  }
  return proposed;
}

/** How a check run ended, in a few words: `exit 1`, `timed out`. */
export function checkResultText(check: Pick<CheckResult, 'timedOut' | 'exitCode' | 'unreported'>): string {
  return check.timedOut ? 'timed out' : (check.unreported ?? `exit ${check.exitCode ?? '?'}`);
}

/**
 * Fills a guidance template: `{output}` is the check's tail, `{command}` the check itself,
 * `{result}` how it ended (`exited 1`, `timed out`), `{attempt}` which run this was (`attempt 2
 * of 3`, or `attempt 2` without a bound). One pass, so a check's output that happens to contain
 * a placeholder is left as it is.
 */
export function fillGuidance(template: string, check: CheckResult, attempt?: { n: number; of: number }): string {
  const values: Record<string, string> = {
    output: check.tail,
    command: check.command,
    result: check.timedOut
      ? 'timed out'
      : check.unreported === undefined
        ? `exited ${check.exitCode ?? 'abnormally'}`
        : check.unreported.replace(/^exit 0/, 'exited 0'),
    attempt: attempt === undefined ? 'attempt 1' : `attempt ${attempt.n}${attempt.of > 0 ? ` of ${attempt.of}` : ''}`,
  };
  return template.replace(/\{(output|command|result|attempt)\}/g, (_, key: string) => values[key]!);
}

/** The guidance sent back for a failed check when the persona gives no template. */
export const DEFAULT_GATE_GUIDANCE = [
  'The check `{command}` {result} ({attempt}). Fix the cause; do not weaken or skip the check.',
  'Last lines of its output:',
  '```',
  '{output}',
  '```',
].join('\n');
