import type { FlowAgentContext, FlowAgentTask, FlowGateRun } from '../../persona/index.js';
import type {
  CallerContext,
  CodeSessionInput,
  CodeSessionOutputs,
  DiffBaseline,
  ScopeConstraints,
  SessionLiveEvent,
} from '../../session/index.js';
import type { ExecutionOutcome } from '../core/execution.js';
import type { AgentSettings, GateSpec } from '../core/plan.js';
import type { StepDiff } from './diff-fold.js';

/** The slice of the session service an agent step uses: seed 004's typed ops, scope constraints and the event seam. */
export interface SessionPort {
  /** `options.baseline`: a start's first diff baseline, handed over by the step guard (step-guard.ts). */
  execute<I extends CodeSessionInput>(
    input: I,
    caller: CallerContext,
    options?: { baseline?: DiffBaseline },
  ): Promise<CodeSessionOutputs[I['op']]>;
  setScopeConstraints(scope: string, constraints: ScopeConstraints): void;
  onSessionEvent(listener: (event: SessionLiveEvent) => void): () => void;
  releaseAllOwnedBy(scope: string): Promise<void>;
}

/** One agent step execution to drive: the drive's task with the flow's full settings. */
export interface AgentTask extends FlowAgentTask {
  settings: AgentSettings;
}

/** The result of one run of a verify gate (the driver's own type: it reads what the flow reports). */
export type GateRun = FlowGateRun;

/** What a driver may do besides talking to the session: the drive's context, with the flow's types. */
export interface AgentContext extends FlowAgentContext {
  sessions: SessionPort;
  /** Runs a verify command in the workspace. */
  runGate(gate: GateSpec): Promise<GateRun>;
  /** The step's change so far: from its base (recorded at its first start) to the work tree now. */
  stepDiff(): Promise<StepDiff>;
}

/**
 * Drives one agent step's code session from start to an honest verdict. The one implementation
 * is the persona layer's step driver (engine/persona/step-driver.ts): every step is a drive of
 * the persona flow machine, by its driver persona or by the step's own rules.
 */
export interface AgentStepDriver {
  drive(task: AgentTask, context: AgentContext): Promise<Omit<ExecutionOutcome, 'exec'>>;
}
