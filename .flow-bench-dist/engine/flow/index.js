export { startRun } from './runtime/start-run.js';
/** Resumes a run (see runtime/resume-run.ts); loaded on use, so `neo flow run` never pays for it. */
export async function resumeRun(options) {
    return (await import('./runtime/resume-run.js')).resumeRun(options);
}
/** Answers a run's approval from another terminal (see runtime/approve.ts); loaded on use. */
export async function approveRun(options) {
    return (await import('./runtime/approve.js')).approveRun(options);
}
export { loadPlanDefinitions, compileFlowFile, assertClean, assertCompiled, planHash } from './runtime/load-plan.js';
export { listRuns, readRunRecord, readRunSnapshot, isProcessAlive } from './store/runs.js';
export { readRunEvents } from './store/run-store.js';
export { runDir } from './store/run-files.js';
export { describePlan } from './core/describe.js';
export { renderGraph } from './core/graph.js';
export { formatDuration } from './core/duration.js';
export { resolveInputs } from './core/inputs.js';
