import { enqueueActions, fromPromise, setup, type AnyActorLogic, type AnyEventObject } from 'xstate';
import { advance, type RunInput } from './advance.js';
import type { RunEvent } from './events.js';
import type { ExecutionOutcome, ExecutionSpec } from './execution.js';
import type { CompiledPlan } from './plan.js';
import type { RunState } from './state.js';
import { defined } from '../../util/defined.js';

/** The machine's context: the plan it runs (which a watched edit may change) and the run state. */
export interface FlowContext {
  plan: CompiledPlan;
  state: RunState;
  /** The first input: start a fresh run or take over a persisted one. */
  boot: Extract<RunInput, { type: 'start' | 'resume' }>;
}

/** What the machine emits: one per recorded run event, in seq order. */
export interface FlowEmitted {
  type: 'run.event';
  event: RunEvent;
}

const DONE = 'xstate.done.actor.';
const ERROR = 'xstate.error.actor.';

/** The step actor the machine is defined with; the runtime supplies the real one with `machine.provide`. */
const unprovided = fromPromise<ExecutionOutcome, ExecutionSpec>(async ({ input }) => ({
  exec: input.exec,
  status: 'failed',
  outputs: {},
  error: { code: 'FLOW_NO_EXECUTOR', message: 'no step executor was provided' },
}));

/**
 * The flow machine: a scheduler over step actors. Every input — a finished execution, a
 * charge, an interrupt, an edited plan — becomes one call of the pure {@link advance}; the
 * machine assigns the new state, emits each event for persistence, stops and spawns step
 * actors. It is the only thing that changes a run's state. `now` is injected so tests control
 * time.
 */
export function createFlowMachine(options: { now: () => string; execution?: AnyActorLogic }) {
  // `enqueue` is XState's action queue; its full generic type adds nothing here.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- see above
  const apply = (context: FlowContext, input: RunInput, enqueue: any): void => {
    const t = advance(context.plan, context.state, input, options.now());
    enqueue.assign({ plan: t.plan, state: t.state });
    for (const event of t.events) enqueue.emit({ type: 'run.event', event } satisfies FlowEmitted);
    for (const id of t.stop) enqueue.stopChild(id);
    for (const spec of t.start) enqueue.spawnChild('execution', { id: spec.exec, input: spec });
  };
  return setup({
    types: {
      context: {} as FlowContext,
      input: {} as FlowContext,
      events: {} as AnyEventObject,
      emitted: {} as FlowEmitted,
      output: {} as RunState,
    },
    actors: { execution: (options.execution ?? unprovided) as typeof unprovided },
  }).createMachine({
    id: 'flow',
    context: ({ input }) => input,
    initial: 'active',
    states: {
      active: {
        entry: enqueueActions(({ context, enqueue }) => apply(context, context.boot, enqueue)),
        always: { guard: ({ context }) => context.state.status !== 'running', target: 'settled' },
        on: {
          '*': {
            actions: enqueueActions(({ context, event, enqueue }) => {
              const input = toRunInput(event);
              if (input !== undefined) apply(context, input, enqueue);
            }),
          },
        },
      },
      settled: { type: 'final' },
    },
    output: ({ context }) => context.state,
  });
}

/** Maps a machine event to a run input; undefined for events the run ignores. */
function toRunInput(event: AnyEventObject): RunInput | undefined {
  const type = event.type;
  if (type.startsWith(DONE)) return { type: 'outcome', outcome: event.output as ExecutionOutcome };
  if (type.startsWith(ERROR)) {
    // Executors never throw; this catches a defect without letting it escape the interpreter.
    const exec = type.slice(ERROR.length);
    const message = event.error instanceof Error ? event.error.message : String(event.error);
    return {
      type: 'outcome',
      outcome: { exec, status: 'failed', outputs: {}, error: { code: 'FLOW_EXECUTOR_CRASHED', message } },
    };
  }
  if (type === 'flow.charge')
    return {
      type: 'charge',
      step: event.step,
      ...defined({ item: event.item }),
      turns: event.turns,
      tokens: event.tokens,
      costUsd: event.costUsd,
    };
  if (type === 'flow.interrupt') return { type: 'interrupt', reason: event.reason };
  if (type === 'flow.plan') return { type: 'plan', plan: event.plan, hash: event.hash };
  return undefined;
}
