/**
 * The advisory routing lines list-backends shows per backend (seed 004 §10): effort support,
 * the cost-profile framing, how each model class resolves, and the task-class advice of every
 * routing definition. Text for a driver to read, not data neo interprets. Pure.
 */
import type { Backend, Routing } from '../definitions/index.js';
import { MODEL_CLASSES } from './model.js';

const PROFILE_FRAMING: Record<Backend['costProfile'], string> = {
  subscription: 'cost: subscription — a speed and rate-limit play; prefer the class that finishes fastest',
  metered: 'cost: metered — a dollar play; prefer the cheapest class that passes the check',
  free: 'cost: free — no spend; choose for fit and speed',
};

export function routingGuidanceLines(
  backend: Backend,
  routings: ReadonlyArray<{ id: string; data: Routing }>,
): string[] {
  const lines: string[] = [];
  const levels = backend.effortSupport?.levels ?? [];
  lines.push(
    levels.length > 0
      ? `effort: accepts ${levels.join(', ')}${backend.effortSupport?.mechanism ? ` (via ${backend.effortSupport.mechanism})` : ''}`
      : 'effort: cannot be set on this backend; omit effort',
  );
  lines.push(PROFILE_FRAMING[backend.costProfile]);
  if (backend.modelSelection === 'none') {
    lines.push('model: the backend picks its own; omit agentModel');
  } else {
    const classes = MODEL_CLASSES.map((c) => `${c} → ${backend.modelClassMap?.[c] ?? 'backend default'}`).join(', ');
    lines.push(
      `model classes: ${classes}${backend.modelSelection === 'per-turn' ? ' (switchable per turn with guide)' : ' (fixed at start)'}`,
    );
  }
  const profile = backend.costProfile === 'metered' ? 'metered' : 'subscription';
  for (const routing of routings) {
    for (const [taskClass, advice] of Object.entries(routing.data.taskClasses)) {
      const a = advice[profile];
      const model =
        backend.modelSelection === 'none'
          ? 'backend model'
          : `${a.modelClass} (${backend.modelClassMap?.[a.modelClass] ?? 'backend default'})`;
      const effort = levels.includes(a.effort) ? ` @ ${a.effort}` : '';
      lines.push(`${taskClass}: ${model}${effort}${a.note ? ` — ${a.note}` : ''}`);
    }
  }
  return lines;
}
