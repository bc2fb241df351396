import type { ExpressionContext } from '../../expr/index.js';
import { isTerminal, type RunState, type StepState } from './state.js';

/** Where an expression is evaluated: a step, maybe one foreach item, maybe one loop iteration. */
export interface ScopeAt {
  item?: { index: number; value: unknown };
  loop?: { iteration: number; outputs?: Record<string, unknown> };
}

/** What `steps.<id>` reads as. */
export interface StepView {
  status: string;
  verdict: string | null;
  outputs: Record<string, unknown>;
  error: string | null;
}

/** The view of a finished step that expressions and env variables see. */
export function stepView(step: StepState): StepView {
  return {
    status: step.status,
    verdict: step.verdict ?? null,
    outputs: step.outputs ?? {},
    error: step.error?.message ?? null,
  };
}

/**
 * The names an expression can reach: inputs, env (the flow's env block), run, steps (finished
 * steps only: a step still running reads as absent), and item/loop where they apply.
 */
export function expressionContext(state: RunState, at: ScopeAt = {}): ExpressionContext {
  const steps: Record<string, StepView> = {};
  for (const [id, step] of state.steps.entries()) if (isTerminal(step.status)) steps[id] = stepView(step);
  const context: Record<string, unknown> = { inputs: state.inputs, env: state.env, run: state.run, steps };
  if (at.item !== undefined) context.item = at.item.value;
  if (at.loop !== undefined) context.loop = { iteration: at.loop.iteration, outputs: at.loop.outputs ?? {} };
  return context;
}
