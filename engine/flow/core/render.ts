import {
  evaluate,
  ExpressionError,
  parseExpression,
  renderTemplate,
  toText,
  truthy,
  type ExpressionContext,
} from '../../expr/index.js';
import { commandEnv } from './env-vars.js';
import type { ExecutionSpec } from './execution.js';
import type { PlanStep } from './plan.js';
import { expressionContext, type ScopeAt } from './scope.js';
import { unitKey, type RunState, type StepState, type UnitState } from './state.js';
import { defined } from '../../util/defined.js';

/**
 * Evaluates a condition written either bare (`steps.a.status == 'failed'`) or wrapped
 * (`${{ … }}`), the two forms the definitions check accepts for `if` and `loop.until`.
 */
export function evaluateCondition(text: string, context: ExpressionContext): boolean {
  if (text.includes('${{')) return truthy(renderTemplate(text, context));
  const parsed = parseExpression(text);
  if ('problem' in parsed) throw new ExpressionError(parsed.problem.message);
  return truthy(evaluate(parsed.expr, context));
}

/** Renders a template to text (a lone expression's value is turned into text too). */
export function renderText(text: string, context: ExpressionContext): string {
  return text.includes('${{') ? toText(renderTemplate(text, context)) : text;
}

/** Renders every string inside a value; a string that is one expression keeps its value's type. */
export function renderDeep(value: unknown, context: ExpressionContext): unknown {
  if (typeof value === 'string') return value.includes('${{') ? renderTemplate(value, context) : value;
  if (Array.isArray(value)) return value.map((item) => renderDeep(item, context));
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [key, inner] of Object.entries(value)) out[key] = renderDeep(inner, context);
    return out;
  }
  return value;
}

/** Renders a map of env templates to strings. */
export function renderEnv(env: Readonly<Record<string, string>>, context: ExpressionContext): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(env)) out[key] = renderText(value, context);
  return out;
}

/** Where in a step a unit is: its item and loop position, for expressions. */
export function scopeOf(step: PlanStep, state: StepState, unit: UnitState, item: number | undefined): ScopeAt {
  const at: ScopeAt = {};
  if (item !== undefined) at.item = { index: item, value: state.items?.[item] };
  if (step.loop !== undefined)
    at.loop = {
      iteration: unit.iteration,
      ...(unit.iteration > 1 && unit.outputs !== undefined ? { outputs: unit.outputs } : {}),
    };
  return at;
}

/**
 * Builds the next execution of a unit, rendering everything it needs. Throws ExpressionError
 * when a template cannot be evaluated; the caller fails the unit with it.
 */
export function buildExecution(state: RunState, step: PlanStep, item: number | undefined): ExecutionSpec {
  const stepState = state.steps.get(step.id)!;
  const unit = item === undefined ? stepState : stepState.units![item]!;
  const at = scopeOf(step, stepState, unit, item);
  // Building the expression context walks every finished step; most commands need none.
  let built: ReturnType<typeof expressionContext> | undefined;
  const context = () => (built ??= expressionContext(state, at));
  const templated = Object.values(step.env).some((value) => value.includes('${{'));
  const env = {
    ...state.env,
    ...commandEnv(state, {
      step: step.id,
      attempt: unit.attempt,
      iteration: unit.iteration,
      needs: step.group === 'finally' && step.needs.length === 0 ? step.reach : step.needs,
      ...defined({ item: at.item }),
    }),
    ...(templated ? renderEnv(step.env, context()) : step.env),
  };
  const spec: ExecutionSpec = {
    exec: `${unitKey(step.id, item)}#${unit.executions + 1}`,
    step: step.id,
    ...defined({ item }),
    attempt: unit.attempt,
    iteration: unit.iteration,
    kind: step.kind,
    ...defined({ delayMs: unit.delayMs }),
    env,
  };
  if (step.agent !== undefined) spec.brief = renderText(step.agent.brief, context());
  if (step.agent?.script?.includes('${{')) spec.script = renderText(step.agent.script, context());
  if (step.approval !== undefined) spec.prompt = renderText(step.approval.prompt, context());
  if (step.flow !== undefined) spec.inputs = renderDeep(step.flow.inputs, context()) as Record<string, unknown>;
  return spec;
}
