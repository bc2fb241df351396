import type { StepProgress } from '../../persona/index.js';
import type { StepKind } from './plan.js';
import type { StepError } from './state.js';

/**
 * One execution of one unit: what the run loop hands the executor. Serializable and fully
 * rendered (expressions already evaluated), so the side-effect layer never evaluates anything.
 */
export interface ExecutionSpec {
  /** Unique within the run. */
  exec: string;
  step: string;
  item?: number;
  attempt: number;
  iteration: number;
  kind: StepKind;
  /** Wait this long first (retry backoff). */
  delayMs?: number;
  /** Variables for commands (run step, gate, loop check): NEO_* plus the flow's and step's env. */
  env: Record<string, string>;
  /** Agent step: the rendered brief. */
  brief?: string;
  /** Agent step: the script file, when its path holds an expression (one script per foreach item). */
  script?: string;
  /** Approval step: the rendered prompt. */
  prompt?: string;
  /** Sub-flow step: rendered inputs. */
  inputs?: Record<string, unknown>;
}

/**
 * What an execution reports. It never throws: every failure is an outcome with a typed error,
 * so an actor error can never escape the interpreter.
 */
export interface ExecutionOutcome {
  exec: string;
  status: 'succeeded' | 'failed';
  outputs: Record<string, unknown>;
  verdict?: string;
  error?: StepError;
  /** `loop.untilRun` passed after this iteration. */
  untilPassed?: boolean;
}

/** Progress an execution reports while it runs (not persisted; for the live view). */
export interface ExecutionProgress extends StepProgress {
  exec: string;
  step: string;
  item?: number;
}
