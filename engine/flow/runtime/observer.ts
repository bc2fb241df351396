import type { RunEvent } from '../core/events.js';
import type { ExecutionProgress } from '../core/execution.js';
import type { CompiledPlan } from '../core/plan.js';
import type { RunRecord } from '../store/run-files.js';

/**
 * What a run reports as it goes, for the CLI's live tree, plain lines or NDJSON. `depth` is 0
 * for the run itself and grows by one per sub-flow level.
 */
export type FlowObservation =
  | { type: 'run'; runId: string; depth: number; record: RunRecord; plan: CompiledPlan; resumed: boolean }
  | { type: 'event'; runId: string; depth: number; event: RunEvent }
  | { type: 'progress'; runId: string; depth: number; progress: ExecutionProgress }
  | { type: 'notice'; runId: string; depth: number; level: 'info' | 'warning'; message: string };

export type RunObserver = (observation: FlowObservation) => void;
