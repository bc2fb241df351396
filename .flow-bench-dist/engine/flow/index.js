/**
 * Flows: plan.yaml compiled to a statechart that schedules step actors (agent sessions,
 * commands, approvals, sub-flows), persisted under NEO_HOME/runs/<runId>/ and resumable.
 * The pure core (compile, schedule, reduce, machine) lives in core/; side effects sit behind
 * the store, the executor and the workspace.
 */
export { startRun } from './runtime/start-run.js';
export { resumeRun } from './runtime/resume-run.js';
export { approveRun } from './runtime/approve.js';
export { loadPlanDefinitions, compileFlowFile, assertClean, assertCompiled, planHash } from './runtime/load-plan.js';
export { listRuns, readRunRecord, readRunSnapshot, isProcessAlive } from './store/runs.js';
export { readRunEvents } from './store/run-store.js';
export { runDir } from './store/run-files.js';
export { describePlan } from './core/describe.js';
export { renderGraph } from './core/graph.js';
export { formatDuration } from './core/duration.js';
export { resolveInputs } from './core/inputs.js';
