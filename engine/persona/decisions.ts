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
  backend: string;
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
  | { kind: 'stop'; outcome: StopOutcome; note: string };

/** The verdict a persona stops its session with. */
export interface Verdict {
  outcome: StopOutcome;
  note: string;
  /** Why it is not a success, in one line. */
  failureReason?: string;
}

/** One run of the verify command. */
export interface CheckResult {
  command: string;
  passed: boolean;
  exitCode?: number;
  timedOut: boolean;
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
 * Without a verify command nothing proved the work, so the best it earns is `partial`; with a
 * failing (or missing) check it is `failed`. Other outcomes pass through: a decider may always
 * claim less than success.
 */
export function honestVerdict(proposed: Verdict, check: CheckResult | undefined, hasCheck: boolean): Verdict {
  if (proposed.outcome !== 'success') return proposed;
  if (!hasCheck) {
    return {
      outcome: 'partial',
      note: `${proposed.note} (not verified: no verify command)`.trim(),
      failureReason: 'not verified: this persona and step have no verify command',
    };
  }
  if (check === undefined)
    return { outcome: 'failed', note: proposed.note, failureReason: 'the verify command did not run' };
  if (!check.passed) {
    return {
      outcome: 'failed',
      note: proposed.note,
      failureReason: `the check \`${check.command}\` fails (${check.timedOut ? 'timed out' : `exit ${check.exitCode ?? '?'}`})`,
    };
  }
  return proposed;
}

/** Fills a guidance template: `{output}` is the check's tail, `{command}` the check itself. */
export function fillGuidance(template: string, check: CheckResult): string {
  return template.replace(/\{output\}/g, check.tail).replace(/\{command\}/g, check.command);
}

/** The guidance sent back for a failed check when the persona gives no template. */
export const DEFAULT_GATE_GUIDANCE = [
  'The check `{command}` still fails. Fix the cause; do not weaken or skip the check.',
  'Last lines of its output:',
  '```',
  '{output}',
  '```',
].join('\n');
