import type { CallerContext, SessionLiveEvent } from '../../session/index.js';
import type { ExecutionOutcome, ExecutionProgress } from '../core/execution.js';
import type { AgentSettings, GateSpec } from '../core/plan.js';
import type { StepError } from '../core/state.js';
import type { StepDiff } from './diff-fold.js';

/** The slice of the session service an agent step uses (seed 004's ops plus the event seam). */
export interface SessionPort {
  execute(input: unknown, caller: CallerContext): Promise<unknown>;
  onSessionEvent(listener: (event: SessionLiveEvent) => void): () => void;
  releaseAllOwnedBy(scope: string): Promise<void>;
}

/** One agent step execution to drive. */
export interface AgentTask {
  runId: string;
  step: string;
  item?: number;
  exec: string;
  settings: AgentSettings;
  /** The rendered brief. */
  brief: string;
  /** Where the agent works (absolute). */
  cwd: string;
  idleTimeoutMs?: number;
}

/** The result of one run of a verify gate. */
export interface GateRun {
  passed: boolean;
  exitCode: number | undefined;
  /** The last lines of its output. */
  tail: string;
  timedOut: boolean;
  /** Failed once, passed on the flake check's rerun. */
  flaky?: boolean;
  durationMs: number;
}

/** What a driver may do besides talking to the session. */
export interface AgentContext {
  sessions: SessionPort;
  /** Aborted on Ctrl-C, a step timeout or a run stop; `reason` is a StepError. */
  signal: AbortSignal;
  /** Whether the run may start another turn; checked before the start and each guidance. */
  budget(): StepError | undefined;
  /** Charges the run's ledger. */
  charge(cost: { turns: number; tokens: number; costUsd: number }): void;
  progress(update: Omit<ExecutionProgress, 'exec' | 'step'>): void;
  /** Runs a verify command in the workspace. */
  runGate(gate: GateSpec): Promise<GateRun>;
  /** The step's change so far: from its base (recorded at its first start) to the work tree now. */
  stepDiff(): Promise<StepDiff>;
  now(): number;
}

/**
 * Drives one agent step's code session from start to an honest verdict. The built-in
 * {@link RulesDriver} answers with fixed rules; the driving-personas layer replaces it with a
 * persona's own deciders behind this same interface.
 */
export interface AgentStepDriver {
  drive(task: AgentTask, context: AgentContext): Promise<Omit<ExecutionOutcome, 'exec'>>;
}
