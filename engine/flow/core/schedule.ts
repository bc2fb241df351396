import { ExpressionError } from '../../expr/index.js';
import { budgetExceeded } from './budget.js';
import type { PlanStep } from './plan.js';
import { buildExecution, evaluateCondition, renderDeep } from './render.js';
import { needsOver } from './frontier.js';
import { expressionContext } from './scope.js';
import { isTerminal, type StepState } from './state.js';
import type { Transaction } from './transaction.js';
import { defined } from '../../util/defined.js';

/**
 * Moves the run forward as far as it can: skips steps whose join or `if` rules them out, expands
 * foreach steps, starts every unit that is ready within maxParallel and the budget, and finishes
 * the run when every step is done. Loops until nothing changes, so one transition settles fully.
 */
export function schedule(tx: Transaction): void {
  for (;;) {
    if (tx.state.status !== 'running') return;
    const { changed, ready } = gate(tx);
    if (changed) continue;
    if (startUnits(tx, ready)) continue;
    break;
  }
  finishIfDone(tx);
}

/**
 * Settles pending steps whose needs are done: skip, fail, expand, or report ready. Only those the
 * frontier holds are looked at (the steps a transition unblocked, and the ready ones still waiting
 * for a slot), so a step's completion costs O(its dependents), not O(steps).
 */
function gate(tx: Transaction): { changed: boolean; ready: PlanStep[] } {
  const ready: PlanStep[] = [];
  let changed = false;
  let mainDone: boolean | undefined;
  // One pass in plan order, as a scan of every step would go: a step this pass unblocks further
  // down the plan is settled in the same pass; one behind it waits for the next pass.
  const queue = tx.frontier.inOrder(tx.frontier.unblocked);
  tx.frontier.takeUnblocked();
  for (let at = 0; ; at++) {
    if (at > 0) mergeAhead(queue, at, tx);
    if (at >= queue.length) break;
    const step = queue[at]!;
    const state = tx.state.steps.get(step.id);
    // An earlier step of this pass may have changed it: look at the state as it is now.
    if (state?.status !== 'pending' || !needsOver(tx.state, step)) continue;
    if (
      step.group === 'finally' &&
      !(mainDone ??= tx.plan.steps.every(
        (s) => s.group === 'finally' || isTerminal(tx.state.steps.get(s.id)?.status ?? 'pending'),
      ))
    )
      continue;
    const needs = step.needs.map((id) => tx.state.steps.get(id)).filter((s): s is StepState => s !== undefined);
    if (tx.state.stopping !== undefined && step.group === 'main') {
      tx.emit({ type: 'step.skipped', step: step.id, reason: tx.state.stopping.code });
      changed = true;
      continue;
    }
    if (!joinHolds(step, needs)) {
      tx.emit({ type: 'step.skipped', step: step.id, reason: 'join' });
      changed = true;
      continue;
    }
    try {
      // The context names every finished step: built only for a step with something to evaluate.
      if (step.if !== undefined && !evaluateCondition(step.if, expressionContext(tx.state))) {
        tx.emit({ type: 'step.skipped', step: step.id, reason: 'if' });
        changed = true;
        continue;
      }
      if (step.foreach !== undefined) {
        expand(tx, step, renderDeep(step.foreach.items, expressionContext(tx.state)));
        changed = true;
        continue;
      }
    } catch (error) {
      tx.fail(step.id, undefined, expressionError(error));
      changed = true;
      continue;
    }
    ready.push(step);
  }
  return { changed, ready };
}

/** Puts the steps unblocked since the last look that lie ahead of `queue[at]` into the queue, in plan order. */
function mergeAhead(queue: PlanStep[], at: number, tx: Transaction): void {
  const position = tx.frontier.order(queue[at - 1]!);
  for (const step of tx.frontier.takeUnblocked()) {
    const order = tx.frontier.order(step);
    if (order <= position || queue.includes(step)) continue;
    let i = at;
    while (i < queue.length && tx.frontier.order(queue[i]!) < order) i++;
    queue.splice(i, 0, step);
  }
}

function joinHolds(step: PlanStep, needs: StepState[]): boolean {
  if (step.join === 'all_done') return true;
  if (step.join === 'one_success') return needs.length === 0 || needs.some((s) => s.status === 'succeeded');
  return needs.every((s) => s.status === 'succeeded');
}

function expand(tx: Transaction, step: PlanStep, items: unknown): void {
  if (!Array.isArray(items)) {
    const shown = typeof items === 'string' ? `the text ${JSON.stringify(items.slice(0, 60))}` : JSON.stringify(items);
    tx.fail(step.id, undefined, {
      code: 'FLOW_FOREACH_NOT_LIST',
      message: `foreach.items of step \`${step.id}\` is ${shown}, not a list`,
    });
    return;
  }
  tx.emit({ type: 'step.expanded', step: step.id, items });
  if (items.length === 0)
    tx.emit({
      type: 'step.completed',
      step: step.id,
      status: 'succeeded',
      outputs: { items: [], count: 0, succeeded: 0, failed: 0 },
    });
}

/** Starts ready units within maxParallel and the budget; true when it changed the run's course. */
function startUnits(tx: Transaction, ready: PlanStep[]): boolean {
  // Approvals wait on a person, not a slot: the frontier does not count them.
  let capacity = tx.plan.maxParallel - tx.frontier.running;
  const candidates = [...ready.map((s) => s.id), ...tx.frontier.fanning];
  for (const step of tx.frontier.inOrder(candidates)) {
    const state = tx.state.steps.get(step.id);
    if (state === undefined) continue;
    const isReady = ready.includes(step);
    if (!isReady && (state.status !== 'running' || state.units === undefined)) continue;
    const items: Array<number | undefined> = [];
    if (isReady) items.push(undefined);
    else if (state.units !== undefined) {
      let active = state.units.filter((u) => u.status === 'running').length;
      const cap = step.foreach?.maxParallel ?? Number.POSITIVE_INFINITY;
      state.units.forEach((unit, index) => {
        if (unit.status === 'pending' && active < cap) {
          items.push(index);
          active++;
        }
      });
    }
    for (const item of items) {
      const consumes = step.kind !== 'approval';
      if (consumes && capacity <= 0) break;
      if (tx.state.stopping !== undefined && step.group === 'main') {
        // A stopping run starts no more main work; foreach items not yet started are cancelled.
        tx.complete(step.id, item, 'cancelled', { error: tx.state.stopping });
        return true;
      }
      const exceeded = budgetExceeded(tx.plan.budgets, tx.state.ledger, {
        newTurn: step.kind === 'agent',
        liveWallMs: tx.liveWallMs(),
      });
      if (exceeded !== undefined) {
        if (tx.state.stopping === undefined) {
          tx.emit({ type: 'run.stopping', error: exceeded });
          return true;
        }
        if (step.kind === 'agent') {
          if (item === undefined) tx.emit({ type: 'step.skipped', step: step.id, reason: exceeded.code });
          else tx.complete(step.id, item, 'cancelled', { error: exceeded });
          return true;
        }
      }
      try {
        const spec = buildExecution(tx.state, step, item);
        tx.emit({
          type: 'step.started',
          step: step.id,
          ...defined({ item }),
          attempt: spec.attempt,
          iteration: spec.iteration,
          exec: spec.exec,
        });
        tx.start.push(spec);
        if (consumes) capacity--;
      } catch (error) {
        tx.fail(step.id, item, expressionError(error));
        return true;
      }
    }
  }
  return false;
}

/** Ends the run when every step is done: succeeded only when no step failed without continueOnError. */
export function finishIfDone(tx: Transaction): void {
  if (tx.state.status !== 'running' || tx.frontier.open > 0) return;
  const all = tx.plan.steps.map((step) => ({ step, state: tx.state.steps.get(step.id) }));
  if (all.some(({ state }) => state === undefined || !isTerminal(state.status))) return;
  if (tx.state.stopping !== undefined) {
    tx.emit({ type: 'run.finished', status: 'failed', reason: tx.state.stopping });
    return;
  }
  const failed = all.find(
    ({ step, state }) => (state!.status === 'failed' || state!.status === 'cancelled') && !step.continueOnError,
  );
  if (failed !== undefined) {
    const error = failed.state!.error;
    tx.emit({
      type: 'run.finished',
      status: 'failed',
      reason: {
        code: 'FLOW_STEP_FAILED',
        message: `step \`${failed.step.id}\` failed${error ? `: ${error.message} (${error.code})` : ''}`,
        ...(error ? { cause: error.cause ?? error.code } : {}),
      },
    });
    return;
  }
  tx.emit({ type: 'run.finished', status: 'succeeded' });
}

/** A template or condition that could not be evaluated, as a step error. */
export function expressionError(error: unknown): { code: string; message: string } {
  if (error instanceof ExpressionError) return { code: 'FLOW_EXPRESSION', message: error.message };
  return { code: 'FLOW_EXPRESSION', message: error instanceof Error ? error.message : String(error) };
}
