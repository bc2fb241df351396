import type { CompiledPlan } from './plan.js';
import type { StepTable } from './step-table.js';

/**
 * The part of a run's cost that scripted backends reported: the `script` backend replays a
 * script's `cost:` with no model behind it, so nothing was spent. Read from each simulated agent
 * step's outputs (a foreach step's items summed). Pure.
 */
export function simulatedCostUsd(plan: CompiledPlan, steps: StepTable): number {
  let total = 0;
  for (const step of plan.steps) {
    if (step.agent?.simulated !== true) continue;
    const state = steps.get(step.id);
    for (const unit of state?.units ?? (state === undefined ? [] : [state])) {
      const cost = unit.outputs?.costUsd;
      if (typeof cost === 'number') total += cost;
    }
  }
  return total;
}
