import type { ExecutionOutcome } from './execution.js';
import type { PlanStep } from './plan.js';
import { evaluateCondition } from './render.js';
import { expressionError } from './schedule.js';
import { expressionContext } from './scope.js';
import type { StepError, UnitState } from './state.js';
import type { Transaction } from './transaction.js';
import { defined } from '../../util/defined.js';

/** Finds the unit an execution belongs to; undefined for a stale one (stopped, superseded). */
export function findExecution(
  tx: Transaction,
  exec: string,
): { step: PlanStep; item: number | undefined; unit: UnitState } | undefined {
  const place = tx.frontier.executions.get(exec);
  const step = place === undefined ? undefined : tx.step(place.step);
  if (place === undefined || step === undefined) return undefined;
  const state = tx.state.steps.get(step.id)!;
  const unit = place.item === undefined ? state : state.units?.[place.item];
  return unit === undefined ? undefined : { step, item: place.item, unit };
}

/**
 * Records what an execution reported and decides what follows: a retry (with exponential
 * backoff, only for errors `retry.on` covers), another loop iteration, or the unit's end.
 * A budget error also stops the run from starting more work.
 */
export function applyOutcome(tx: Transaction, outcome: ExecutionOutcome): void {
  const found = findExecution(tx, outcome.exec);
  if (found === undefined) return;
  const { step, item, unit } = found;
  const extra = { outputs: outcome.outputs, ...defined({ verdict: outcome.verdict }) };
  if (outcome.status === 'failed') {
    const error: StepError = outcome.error ?? { code: 'FLOW_STEP_FAILED', message: 'the step failed' };
    if (error.code === 'FLOW_BUDGET_EXCEEDED') {
      tx.fail(step.id, item, error, extra);
      if (tx.state.stopping === undefined) tx.emit({ type: 'run.stopping', error });
      return;
    }
    const retry = step.retry;
    if (
      retry !== undefined &&
      unit.attempt < retry.attempts &&
      (retry.on === 'any' || error.transient === true) &&
      tx.state.stopping === undefined
    ) {
      const delayMs = retry.backoffMs * 2 ** (unit.attempt - 1);
      tx.emit({
        type: 'step.retrying',
        step: step.id,
        ...defined({ item }),
        attempt: unit.attempt + 1,
        delayMs,
        error,
      });
      return;
    }
    tx.fail(step.id, item, error, extra);
    return;
  }
  if (step.loop === undefined) {
    tx.complete(step.id, item, 'succeeded', extra);
    return;
  }
  let done: boolean;
  try {
    done = loopDone(tx, step, item, unit, outcome);
  } catch (error) {
    tx.fail(step.id, item, expressionError(error), extra);
    return;
  }
  const outputs = { ...outcome.outputs, iterations: unit.iteration };
  if (done) {
    tx.complete(step.id, item, 'succeeded', { ...extra, outputs });
  } else if (unit.iteration < step.loop.maxIterations) {
    tx.emit({
      type: 'step.iterated',
      step: step.id,
      ...defined({ item }),
      iteration: unit.iteration + 1,
      outputs: outcome.outputs,
    });
  } else {
    const condition =
      step.loop.untilRun !== undefined ? `\`${step.loop.untilRun}\` never passed` : `\`${step.loop.until}\` never held`;
    tx.fail(
      step.id,
      item,
      { code: 'FLOW_LOOP_EXHAUSTED', message: `${step.loop.maxIterations} iterations ran and ${condition}` },
      { ...extra, outputs },
    );
  }
}

function loopDone(
  tx: Transaction,
  step: PlanStep,
  item: number | undefined,
  unit: UnitState,
  outcome: ExecutionOutcome,
): boolean {
  const loop = step.loop!;
  if (loop.untilRun !== undefined && outcome.untilPassed === true) return true;
  if (loop.until === undefined) return false;
  const state = tx.state.steps.get(step.id)!;
  const context = expressionContext(tx.state, {
    ...(item === undefined ? {} : { item: { index: item, value: state.items?.[item] } }),
    loop: { iteration: unit.iteration, outputs: outcome.outputs },
  });
  return evaluateCondition(loop.until, context);
}
