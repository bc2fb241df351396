import type { RunEvent, RunEventBody } from './events.js';
import type { ExecutionSpec } from './execution.js';
import { Frontier, planStep } from './frontier.js';
import type { CompiledPlan, PlanStep } from './plan.js';
import { reduce } from './reduce.js';
import { isTerminal, type RunState, type StepError } from './state.js';
import { defined } from '../../util/defined.js';

/**
 * One run-loop transition in the making: events are applied to the state as they are emitted, so
 * every later decision in the same transition sees them. The result is what the run loop
 * persists (events), starts (executions) and stops (execution ids).
 */
export class Transaction {
  plan: CompiledPlan;
  state: RunState;
  readonly now: string;
  readonly events: RunEvent[] = [];
  /** The state right after each of `events`, in the same order. */
  readonly states: RunState[] = [];
  readonly start: ExecutionSpec[] = [];
  readonly stop: string[] = [];
  /** What the scheduler asks of the state, kept up to date with each event (frontier.ts). */
  readonly frontier: Frontier;

  constructor(plan: CompiledPlan, state: RunState, now: string) {
    this.plan = plan;
    this.state = state;
    this.now = now;
    this.frontier = Frontier.take(plan, state);
  }

  emit(body: RunEventBody): void {
    const event = { ...body, seq: this.state.seq + 1, at: this.now } as RunEvent;
    const before = this.state;
    this.state = reduce(before, event);
    this.frontier.apply(this.plan, before, this.state, event);
    this.events.push(event);
    this.states.push(this.state);
  }

  step(id: string): PlanStep | undefined {
    return planStep(this.plan, id);
  }

  /** Ends the transition: its frontier goes on with the state it led to. */
  close(): void {
    this.frontier.keep(this.state);
  }

  /** Milliseconds since the last recorded event (wall time not yet in the ledger). */
  liveWallMs(): number {
    if (this.state.lastAt === undefined) return 0;
    return Math.max(0, Date.parse(this.now) - Date.parse(this.state.lastAt));
  }

  /** Finishes a unit (or a plain step) as failed. */
  fail(
    step: string,
    item: number | undefined,
    error: StepError,
    extra: { outputs?: Record<string, unknown>; verdict?: string } = {},
  ): void {
    this.complete(step, item, 'failed', { ...extra, error });
  }

  /** Finishes a unit; the last item of a foreach also finishes its step. */
  complete(
    step: string,
    item: number | undefined,
    status: 'succeeded' | 'failed' | 'cancelled',
    extra: { outputs?: Record<string, unknown>; verdict?: string; error?: StepError } = {},
  ): void {
    this.emit({ type: 'step.completed', step, ...defined({ item }), status, ...extra });
    if (item !== undefined) this.#aggregate(step);
  }

  #aggregate(id: string): void {
    const state = this.state.steps.get(id);
    if (state?.units === undefined || state.status !== 'running') return;
    if (!state.units.every((u) => isTerminal(u.status))) return;
    const outputs = {
      items: state.units.map((u) => u.outputs ?? null),
      count: state.units.length,
      succeeded: state.units.filter((u) => u.status === 'succeeded').length,
      failed: state.units.filter((u) => u.status !== 'succeeded').length,
    };
    const firstBad = state.units.findIndex((u) => u.status !== 'succeeded');
    if (firstBad === -1) {
      this.emit({ type: 'step.completed', step: id, status: 'succeeded', outputs, verdict: 'success' });
      return;
    }
    const bad = state.units[firstBad]!;
    this.emit({
      type: 'step.completed',
      step: id,
      status: 'failed',
      outputs,
      verdict: 'failed',
      error: {
        code: bad.error?.code ?? 'FLOW_STEP_FAILED',
        message: `${outputs.failed} of ${outputs.count} items failed; item ${firstBad}: ${bad.error?.message ?? bad.status}`,
      },
    });
  }
}
