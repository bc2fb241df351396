import { advance, type RunInput } from './advance.js';
import type { RunEvent } from './events.js';
import type { ExecutionOutcome, ExecutionSpec } from './execution.js';
import type { CompiledPlan } from './plan.js';
import type { RunState } from './state.js';

/** What a run loop drives: the plan, the state it starts from and the first input. */
export interface RunLoopInput {
  plan: CompiledPlan;
  state: RunState;
  /** Start a fresh run or take over a persisted one. */
  boot: Extract<RunInput, { type: 'start' | 'resume' }>;
  /** `now` is injected so tests control time. */
  now: () => string;
  /**
   * Runs one execution. It should never throw (every failure is an outcome); a rejection is
   * reported as the execution failing with FLOW_EXECUTOR_CRASHED. Its signal aborts when the run
   * stops it (an interrupt, a cancelled sibling) or settles.
   */
  execute: (spec: ExecutionSpec, signal: AbortSignal) => Promise<ExecutionOutcome>;
  /**
   * Each event a transition records, in seq order, with the state right after it (what folding
   * the events so far gives), before the executions it starts begin.
   */
  onEvent: (event: RunEvent, state: RunState) => void;
}

/** A run being driven: inputs go in with `send`, `done` resolves with the settled state. */
export interface RunLoop {
  /** Starts the run with its boot input (inputs sent before are handled after it). */
  start(): void;
  /**
   * One input, handled at once when the loop is idle, else after the transition in progress and
   * those queued before it (run to completion: a transition never sees another half-applied).
   * Ignored once the run has settled.
   */
  send(input: RunInput): void;
  /** False once the run settled (or a transition threw): inputs are dropped from then on. */
  readonly active: boolean;
  readonly plan: CompiledPlan;
  readonly state: RunState;
  /** The state the run settled in; rejects with what a transition threw. */
  readonly done: Promise<RunState>;
}

/**
 * The flow's driver: the only thing that changes a run's state. Each input becomes one call of
 * the pure {@link advance}; the loop keeps the new plan and state, hands each recorded event to
 * `onEvent`, aborts the executions the transition stops (their late outcomes are dropped) and
 * starts the ones it schedules, whose outcomes come back as inputs. When the state leaves
 * `running` the run has settled: every execution still live is aborted and `done` resolves.
 * A plain queue instead of an actor library: the rules are these few, and each is here.
 */
export function createRunLoop(input: RunLoopInput): RunLoop {
  let plan = input.plan;
  let state = input.state;
  let started = false;
  let active = true;
  let draining = false;
  const queue: RunInput[] = [];
  /** Live executions by exec id: aborting one also marks its outcome as one to drop. */
  const live = new Map<string, AbortController>();
  let resolve!: (state: RunState) => void;
  let reject!: (error: unknown) => void;
  const done = new Promise<RunState>((res, rej) => {
    resolve = res;
    reject = rej;
  });

  const stopAll = (): void => {
    for (const controller of live.values()) controller.abort();
    live.clear();
  };

  const launch = (spec: ExecutionSpec): void => {
    const controller = new AbortController();
    live.set(spec.exec, controller);
    const report = (outcome: ExecutionOutcome): void => {
      // Stopped (or the run settled) meanwhile: the run no longer waits for this execution.
      if (live.get(spec.exec) !== controller) return;
      live.delete(spec.exec);
      send({ type: 'outcome', outcome });
    };
    let running: Promise<ExecutionOutcome>;
    try {
      running = input.execute(spec, controller.signal);
    } catch (error) {
      running = Promise.reject(error);
    }
    running.then(report, (error: unknown) => report(crashed(spec.exec, error)));
  };

  const step = (next: RunInput): void => {
    const t = advance(plan, state, next, input.now());
    plan = t.plan;
    state = t.state;
    t.events.forEach((event, i) => input.onEvent(event, t.states[i]!));
    for (const exec of t.stop) {
      live.get(exec)?.abort();
      live.delete(exec);
    }
    for (const spec of t.start) launch(spec);
  };

  const drain = (): void => {
    if (draining) return;
    draining = true;
    try {
      for (let next = queue.shift(); next !== undefined && active; next = queue.shift()) {
        step(next);
        if (state.status !== 'running') {
          active = false;
          queue.length = 0;
          stopAll();
          resolve(state);
        }
      }
    } catch (error) {
      active = false;
      queue.length = 0;
      stopAll();
      reject(error);
    } finally {
      draining = false;
    }
  };

  function send(next: RunInput): void {
    if (!active) return;
    queue.push(next);
    if (started) drain();
  }

  return {
    start() {
      if (started) return;
      started = true;
      queue.unshift(input.boot);
      drain();
    },
    send,
    get active() {
      return active;
    },
    get plan() {
      return plan;
    },
    get state() {
      return state;
    },
    done,
  };
}

/** An execution that threw instead of reporting: a defect, reported as its failure. */
function crashed(exec: string, error: unknown): ExecutionOutcome {
  const message = error instanceof Error ? error.message : String(error);
  return { exec, status: 'failed', outputs: {}, error: { code: 'FLOW_EXECUTOR_CRASHED', message } };
}
