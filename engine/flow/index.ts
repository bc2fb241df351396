/**
 * Flows: plan.yaml compiled to a plan a run loop schedules executions of (agent sessions,
 * commands, approvals, sub-flows), persisted under NEO_HOME/runs/<runId>/ and resumable.
 * The pure core (compile, schedule, reduce, the run loop) lives in core/; side effects sit behind
 * the store, the executor and the workspace.
 */
import type { ResumeOptions, RunOutcome } from './runtime/options.js';
import type { RunRecord } from './store/run-files.js';

export { startRun } from './runtime/start-run.js';

/** Resumes a run (see runtime/resume-run.ts); loaded on use, so `neo flow run` never pays for it. */
export async function resumeRun(options: ResumeOptions): Promise<RunOutcome> {
  return (await import('./runtime/resume-run.js')).resumeRun(options);
}

/** Answers a run's approval from another terminal (see runtime/approve.ts); loaded on use. */
export async function approveRun(options: {
  home: string;
  runId: string;
  step: string;
  decision: string;
  note?: string;
  by?: string;
}): Promise<{ record: RunRecord; key: string; live: boolean }> {
  return (await import('./runtime/approve.js')).approveRun(options);
}
export type { RunEnvironment, StartOptions, ResumeOptions, RunOutcome } from './runtime/options.js';
export type { SessionHost } from './runtime/session-host.js';
export type { FlowObservation, RunObserver } from './runtime/observer.js';
export type { ApprovalPrompter, ApprovalAsk, ApprovalAnswer } from './runtime/approvals.js';
export {
  loadPlanDefinitions,
  compileFlowFile,
  assertClean,
  assertCompiled,
  planHash,
  type LoadedPlan,
} from './runtime/load-plan.js';
export { readyPlan, type ReadyPlan } from './runtime/plan-cache.js';
export { requirePlanSandboxes, plannedSandboxes } from './runtime/require-sandbox.js';
export { requirePlanSecrets, declaredSecrets } from './runtime/require-secrets.js';
export { backendProblems, problemText, requirePlanBackends } from './runtime/require-backends.js';
export { latestRunId, listRuns, readRunRecord, driverAlive } from './store/runs.js';
export { readCheckedRun, readShownRun, type CheckedRun, type ShownRun } from './store/checked-run.js';
export { isTrustError } from './store/trust-errors.js';
export { tidyRuns } from './store/tidy.js';
export { readRunPlan } from './runtime/run-plan.js';
export { cleanRuns, type CleanCriteria, type CleanItem } from './runtime/clean.js';
export { isAbandoned, listRunsSettled, readRunSettled, readRunShown, settleAbandoned } from './runtime/abandoned.js';
export { runDir, type RunRecord, type WorkspaceRecord, type PinnedDefinition } from './store/run-files.js';
export type { Isolation } from './workspace/index.js';
export { planDependencies, type DependencyPlan } from './workspace/index.js';
export type { AgentStepDriver, AgentTask, AgentContext, SessionPort, GateRun } from './agent/driver.js';
export type { CompileProblem } from './core/compile-types.js';
export type { CompiledPlan, PlanStep, PlanTree, AgentSettings, StepKind, SandboxSetting } from './core/plan.js';
export type { RunEvent, RunEventBody } from './core/events.js';
export type { RunState, StepState, UnitState, StepError, Ledger } from './core/state.js';
export type { ExecutionProgress } from './core/execution.js';
export { describePlan, type StepDescription } from './core/describe.js';
export { costLabel } from './core/cost-label.js';
export { simulatedCostUsd } from './core/simulated-cost.js';
export { failureOutput, failureOutputHeading, type FailureOutput } from './core/failure-output.js';
export { renderGraph, stepGraph, type GraphNode, type GraphEdge } from './core/graph.js';
export { reduce } from './core/reduce.js';
export { initialRunState } from './core/state.js';
export { newRunId } from './runtime/ids.js';
export { LocalEngine } from './engines/local.js';
export type { FlowEngine, StepEngine, RunRequest, RunResult, EngineName } from './engines/engine.js';
export { formatDuration } from '../util/duration.js';
export { resolveInputs } from './core/inputs.js';
export type { InputProblem } from './core/input-problem.js';
export { DECISIONS_FILE } from './runtime/decisions.js';
