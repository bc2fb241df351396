/**
 * One step's state, apart from the run's (state.ts), so that the table of steps (step-table.ts)
 * and the run's state both name it without importing each other.
 */

/** A unit's lifecycle: pending → running (or waiting, for an approval) → a terminal status. */
export type UnitStatus = 'pending' | 'running' | 'waiting' | 'succeeded' | 'failed' | 'skipped' | 'cancelled';

/** A typed, serializable failure. `transient` errors are the ones `retry.on: transient` retries. */
export interface StepError {
  code: string;
  message: string;
  /** What to do about it (an install command, a flag), when the cause said. */
  hint?: string;
  transient?: boolean;
  /**
   * The code of the failure behind this one, when this one wraps it (a run failed because a step
   * failed with FLOW_GATE_FAILED): what the exit code and `--json`'s `cause` name.
   */
  cause?: string;
}

/**
 * One schedulable unit: a plain step, or one item of a foreach step. Retries and loop
 * iterations happen inside a unit; each start is one execution.
 */
export interface UnitState {
  status: UnitStatus;
  /** 1-based attempt of the current iteration. */
  attempt: number;
  /** 1-based loop iteration. */
  iteration: number;
  /** How many executions this unit started, across resumes. */
  executions: number;
  /** The running execution's id. */
  exec?: string;
  /** Wait before the next attempt (retry backoff). */
  delayMs?: number;
  startedAt?: string;
  endedAt?: string;
  outputs?: Record<string, unknown>;
  verdict?: string;
  error?: StepError;
}

/** A step's state; a foreach step also keeps its items and one unit per item. */
export interface StepState extends UnitState {
  skipReason?: string;
  items?: unknown[];
  units?: UnitState[];
}
