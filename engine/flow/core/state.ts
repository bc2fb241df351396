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

/** What the run spent, across steps, sub-flows and resumes. */
export interface Ledger {
  turns: number;
  tokens: number;
  costUsd: number;
  /** Wall time the run was alive (gaps while no process ran it are not counted). */
  wallMs: number;
}

/** The values expressions read under `run`. */
export interface RunInfo {
  id: string;
  workspace: string;
  projectDir: string;
  branch?: string;
}

export type RunStatus = 'running' | 'succeeded' | 'failed' | 'interrupted';

/**
 * A run's whole state: the fold of its events. Serializable; it is what the run loop holds, the
 * content of snapshot.json, and what a resume starts from.
 */
export interface RunState {
  runId: string;
  seq: number;
  status: RunStatus;
  reason?: StepError;
  /** Set when the run must stop starting main steps (a budget ran out). */
  stopping?: StepError;
  inputs: Record<string, unknown>;
  env: Record<string, string>;
  run: RunInfo;
  steps: Record<string, StepState>;
  ledger: Ledger;
  /** Time of the last event, for wall-time accounting. */
  lastAt?: string;
}

const TERMINAL: ReadonlySet<UnitStatus> = new Set(['succeeded', 'failed', 'skipped', 'cancelled']);

export function isTerminal(status: UnitStatus): boolean {
  return TERMINAL.has(status);
}

/** A fresh unit. */
export function pendingUnit(): UnitState {
  return { status: 'pending', attempt: 1, iteration: 1, executions: 0 };
}

/** The key of a unit: the step id, or `id[index]` for a foreach item. */
export function unitKey(step: string, item?: number): string {
  return item === undefined ? step : `${step}[${item}]`;
}

/** A new run's state, before its first event. */
export function initialRunState(runId: string, stepIds: readonly string[]): RunState {
  const steps: Record<string, StepState> = {};
  for (const id of stepIds) steps[id] = pendingUnit();
  return {
    runId,
    seq: 0,
    status: 'running',
    inputs: {},
    env: {},
    run: { id: runId, workspace: '', projectDir: '' },
    steps,
    ledger: { turns: 0, tokens: 0, costUsd: 0, wallMs: 0 },
  };
}
