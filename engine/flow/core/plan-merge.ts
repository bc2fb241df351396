import type { CompiledPlan, PlanStep } from './plan.js';
import type { RunState } from './state.js';

/**
 * Merges an edited plan into a run: a step that is kept (by default: it has started or
 * finished) keeps the definition it ran with; any other step takes the edit; new steps are
 * added; a removed step goes only if it is not kept. Flow-wide settings (budgets, maxParallel,
 * env) stay as the run pinned them. A resume with --rebase-definitions keeps only succeeded
 * steps, since everything else runs again.
 */
export function mergePlan(
  current: CompiledPlan,
  edited: CompiledPlan,
  state: RunState,
  keep: (id: string) => boolean = (id) => (state.steps.get(id)?.status ?? 'pending') !== 'pending',
): { plan: CompiledPlan; added: string[]; removed: string[]; changed: string[] } {
  const started = keep;
  const added: string[] = [];
  const removed: string[] = [];
  const changed: string[] = [];
  const steps: PlanStep[] = [];
  const editedIds = new Set(edited.steps.map((s) => s.id));
  for (const step of edited.steps) {
    const before = current.steps.find((s) => s.id === step.id);
    if (before === undefined) {
      added.push(step.id);
      steps.push(step);
    } else if (started(step.id)) {
      steps.push(before);
    } else {
      if (JSON.stringify(before) !== JSON.stringify(step)) changed.push(step.id);
      steps.push(step);
    }
  }
  for (const step of current.steps) {
    if (editedIds.has(step.id)) continue;
    if (started(step.id)) steps.push(step);
    else removed.push(step.id);
  }
  // Steps that stayed because they had started may be needed by nothing now; that is harmless.
  const kept = new Set(steps.map((s) => s.id));
  const plan: CompiledPlan = {
    ...current,
    steps: steps.map((s) => ({ ...s, needs: s.needs.filter((n) => kept.has(n)) })),
  };
  return { plan, added, removed, changed };
}
