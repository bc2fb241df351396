import type { RunEvent } from './events.js';
import type { ExecutionOutcome, ExecutionSpec } from './execution.js';
import { downstreamOf } from './graph-order.js';
import { applyOutcome } from './outcome.js';
import type { CompiledPlan } from './plan.js';
import { mergePlan } from './plan-merge.js';
import { renderEnv } from './render.js';
import { expressionContext } from './scope.js';
import { schedule } from './schedule.js';
import type { RunInfo, RunState } from './state.js';
import { Transaction } from './transaction.js';
import { defined } from '../../util/defined.js';

/** Everything that can move a run: the run loop turns each into one transition. */
export type RunInput =
  | { type: 'start'; inputs: Record<string, unknown>; run: RunInfo }
  | {
      type: 'resume';
      rerun: string[];
      rebased?: { hash: string; added: string[]; removed: string[]; changed: string[] };
    }
  | { type: 'outcome'; outcome: ExecutionOutcome }
  | { type: 'charge'; step: string; item?: number; turns: number; tokens: number; costUsd: number }
  | { type: 'interrupt'; reason: string }
  | { type: 'plan'; plan: CompiledPlan; hash: string };

/** The result of one transition. */
export interface Transition {
  plan: CompiledPlan;
  state: RunState;
  events: RunEvent[];
  /** The state right after each event, in the same order (the last one is `state`). */
  states: RunState[];
  start: ExecutionSpec[];
  stop: string[];
}

/**
 * The run's transition function: given the plan, the state and one input, the events to record,
 * the executions to start and the ones to stop. Pure and deterministic (`now` is passed in);
 * the run loop (run-loop.ts) is a thin shell around it, and tests drive it directly.
 */
export function advance(plan: CompiledPlan, state: RunState, input: RunInput, now: string): Transition {
  const tx = new Transaction(plan, state, now);
  switch (input.type) {
    case 'start': {
      const env = renderEnv(plan.env, expressionContext({ ...state, inputs: input.inputs, run: input.run }));
      tx.emit({
        type: 'run.started',
        flow: plan.name,
        steps: plan.steps.map((s) => s.id),
        inputs: input.inputs,
        env,
        run: input.run,
      });
      break;
    }
    case 'resume': {
      const reset = [...downstreamOf(plan.steps, input.rerun)];
      tx.emit({
        type: 'run.resumed',
        rerun: input.rerun,
        reset,
        ...defined({ rebased: input.rebased }),
      });
      break;
    }
    case 'outcome':
      applyOutcome(tx, input.outcome);
      break;
    case 'charge':
      tx.emit({
        type: 'ledger.charged',
        step: input.step,
        ...defined({ item: input.item }),
        turns: input.turns,
        tokens: input.tokens,
        costUsd: input.costUsd,
      });
      return result(tx);
    case 'interrupt': {
      if (tx.state.status !== 'running') return result(tx);
      for (const step of tx.state.steps.values()) {
        for (const unit of step.units ?? [step])
          if (unit.exec !== undefined && (unit.status === 'running' || unit.status === 'waiting'))
            tx.stop.push(unit.exec);
      }
      tx.emit({ type: 'run.interrupted', reason: input.reason });
      return result(tx);
    }
    case 'plan': {
      const merged = mergePlan(plan, input.plan, tx.state);
      if (merged.added.length + merged.removed.length + merged.changed.length === 0) return result(tx);
      tx.plan = merged.plan;
      tx.emit({
        type: 'plan.updated',
        hash: input.hash,
        added: merged.added,
        removed: merged.removed,
        changed: merged.changed,
      });
      break;
    }
  }
  schedule(tx);
  return result(tx);
}

function result(tx: Transaction): Transition {
  tx.close();
  return { plan: tx.plan, state: tx.state, events: tx.events, states: tx.states, start: tx.start, stop: tx.stop };
}
