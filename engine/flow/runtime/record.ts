import { selfIdentity } from '../../execution/index.js';
import type { CompiledPlan } from '../core/plan.js';
import type { RunState } from '../core/state.js';
import type { RunRecord, StepSummary } from '../store/run-files.js';
import type { WorkspaceSummary } from '../workspace/index.js';
import { defined } from '../../util/defined.js';

/**
 * run.json's view of a run's state: status (`waiting` while only approvals are open), reason,
 * ledger, one line per step and the approvals waiting for an answer. `finished` drops the pid:
 * no process drives the run any more.
 */
export function recordFromState(
  record: RunRecord,
  state: RunState,
  plan: CompiledPlan,
  options: { finished?: boolean; summary?: WorkspaceSummary } = {},
): RunRecord {
  const steps: Record<string, StepSummary> = {};
  const waiting: NonNullable<RunRecord['waiting']> = [];
  let busy = false;
  for (const step of plan.steps) {
    const s = state.steps.get(step.id);
    if (s === undefined) continue;
    steps[step.id] = {
      status: s.status,
      ...defined({ verdict: s.verdict, error: s.error }),
    };
    const units = s.units ?? [s];
    units.forEach((unit, index) => {
      if (unit.status !== 'running') return;
      if (step.kind === 'approval') {
        waiting.push({
          step: s.units === undefined ? step.id : `${step.id}[${index}]`,
          prompt: step.approval!.prompt,
          decisions: step.approval!.decisions.map((d) => d.id),
        });
      } else busy = true;
    });
  }
  const status: RunRecord['status'] =
    state.status === 'running' && waiting.length > 0 && !busy ? 'waiting' : state.status;
  const next: RunRecord = {
    ...record,
    status,
    updatedAt: new Date().toISOString(),
    ledger: state.ledger,
    steps,
  };
  if (state.reason !== undefined) next.reason = state.reason;
  else delete next.reason;
  if (waiting.length > 0) next.waiting = waiting;
  else delete next.waiting;
  if (options.finished) {
    delete next.pid;
    delete next.pidStart;
  }
  if (options.summary !== undefined) next.summary = options.summary;
  return next;
}

/** This process as a run's driver: `pid` and, where /proc tells it, `pidStart`. */
export function driverFields(): { pid: number; pidStart?: number } {
  const self = selfIdentity();
  return self.start === undefined ? { pid: self.pid } : { pid: self.pid, pidStart: self.start };
}
