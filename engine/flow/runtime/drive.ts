import { handoffWritten, noteHandoff } from './handoff-hook.js';
import { join } from 'node:path';
import type { DefinitionSet } from '../../definitions/index.js';
import { describeProcess } from '../../execution/index.js';
import { NeoError } from '../../util/errors.js';
import { openWork } from '../../util/open-work.js';
import type { RunInput } from '../core/advance.js';
import type { RunEvent } from '../core/events.js';
import { budgetExceeded, type BudgetMoment } from '../core/budget.js';
import type { ExecutionOutcome, ExecutionProgress, ExecutionSpec } from '../core/execution.js';
import { createRunLoop } from '../core/run-loop.js';
import type { CompiledPlan } from '../core/plan.js';
import { mergePlan } from '../core/plan-merge.js';
import { reduce } from '../core/reduce.js';
import type { RunState, StepError } from '../core/state.js';
import { acquireLockFile, takeOverNotice } from '../store/lock-file.js';
import { RUN_FILES, type RunRecord } from '../store/run-files.js';
import type { RunStore } from '../store/run-store.js';
import type { Workspace, WorkspaceSummary } from '../workspace/index.js';
import { plansGates, trustDependencies } from '../workspace/trusted-dependencies.js';
import { stepKey, type StepEngine } from '../engines/engine.js';
import type { AgentServices } from './agents.js';
import type { ApprovalPrompter } from './approvals.js';
import { execute, type ExecutorDeps } from './executor.js';
import { closeStepOutputs } from './step-output.js';
import type { RunObserver } from './observer.js';
import { recordFromState } from './record.js';
import { logRunEvent, runDecisionLog } from './decisions.js';
import { defined } from '../../util/defined.js';

/** A parent run, seen from its sub-flow: spending and budget are shared. */
export interface ParentLink {
  runId: string;
  step: string;
  depth: number;
  charge(cost: { turns: number; tokens: number; costUsd: number }): void;
  budget(moment?: BudgetMoment): StepError | undefined;
}

/** Everything one process needs to drive one run to rest. */
export interface DriveInput {
  home: string;
  plan: CompiledPlan;
  state: RunState;
  boot: Extract<RunInput, { type: 'start' | 'resume' }>;
  store: RunStore;
  record: RunRecord;
  workspace: Workspace;
  set: () => DefinitionSet;
  agents: AgentServices;
  yes: boolean;
  observer?: RunObserver;
  prompter?: ApprovalPrompter;
  /** Aborts on Ctrl-C: the run is interrupted, checkpointed and left resumable. */
  signal?: AbortSignal;
  parent?: ParentLink;
  /** The engine's part in a step (at-least-once, recorded once by key); none: the step just runs. */
  steps?: StepEngine;
  subflow: (
    spec: ExecutionSpec,
    step: CompiledPlan['steps'][number],
    signal: AbortSignal,
    link: ParentLink,
  ) => Promise<Omit<ExecutionOutcome, 'exec'>>;
  /** Starts watching definitions; called with a function that hands an edited plan to the run. */
  watch?: (
    apply: (plan: CompiledPlan, hash: string) => void,
    current: () => CompiledPlan,
  ) => Promise<() => Promise<void>>;
}

export interface DriveResult {
  state: RunState;
  plan: CompiledPlan;
  record: RunRecord;
  summary?: WorkspaceSummary;
}

/** How long an interrupted execution may take to clean up (stop its session, kill its group). */
const CLEANUP_MS = 10_000;

/**
 * Drives a run with the run loop until it settles: every emitted event is appended to
 * events.jsonl, folded into the state and checkpointed; executions run through the executor;
 * Ctrl-C becomes an interrupt. Holds the run's lock file so two processes never drive one run.
 */
export async function drive(input: DriveInput): Promise<DriveResult> {
  const { store, home } = input;
  const runId = input.record.runId;
  const depth = input.parent === undefined ? 0 : input.parent.depth + 1;
  const lock = acquireLockFile(
    join(store.dir, RUN_FILES.lock),
    runId,
    (holder) =>
      new NeoError('FLOW_RUN_LIVE', `run ${runId} is being driven by process ${describeProcess(holder)}`, {
        hint: `wait for it, or stop that process first (kill ${holder.pid})`,
      }),
  );
  let plan = input.plan;
  let state = input.state;
  let record = input.record;
  const inflight = new Set<Promise<unknown>>();
  const observe = input.observer ?? (() => {});
  // The top-level run's log also takes its session service's decisions (it closes it).
  const decisions = runDecisionLog(store.dir);
  if (depth === 0) input.agents.useLog(decisions);
  if (lock.tookOverFrom !== undefined)
    observe({
      type: 'notice',
      runId,
      depth,
      level: 'info',
      message: takeOverNotice(`run ${runId}`, lock.tookOverFrom),
    });

  const budget = (moment: BudgetMoment = 'before'): StepError | undefined => {
    const live = state.lastAt === undefined ? 0 : Math.max(0, Date.now() - Date.parse(state.lastAt));
    return (
      budgetExceeded(plan.budgets, state.ledger, { newTurn: true, liveWallMs: live, moment }) ??
      input.parent?.budget(moment)
    );
  };
  const link = (spec: ExecutionSpec): ParentLink => ({
    runId,
    step: spec.step,
    depth,
    charge: (cost) => charge(spec, cost),
    budget,
  });
  const deps: ExecutorDeps = {
    runId,
    home,
    plan: () => plan,
    workspace: input.workspace.record,
    store,
    yes: input.yes,
    ...defined({ prompter: input.prompter }),
    agents: () => input.agents.get(),
    subflow: (spec, step, signal) => input.subflow(spec, step, signal, link(spec)),
    startedAt: (spec) => {
      const step = state.steps.get(spec.step);
      return (spec.item === undefined ? step : step?.units?.[spec.item])?.startedAt;
    },
    budget,
    charge: (spec, cost) => charge(spec, cost),
    progress: (update: ExecutionProgress) => observe({ type: 'progress', runId, depth, progress: update }),
    ...(input.steps === undefined
      ? {}
      : {
          sleep: (spec: ExecutionSpec, ms: number, signal: AbortSignal) =>
            input.steps!.sleep(stepKey(spec), ms, signal),
        }),
  };
  // Before any step: what a gate may judge with is what the checkout held when the run first
  // started (a resume keeps it), or what a later run step installed (trusted-dependencies.ts).
  if (plansGates(plan)) await trustDependencies({ workspace: deps.workspace, home, runId, onlyIfAbsent: true });
  const execution = (spec: ExecutionSpec, signal: AbortSignal): Promise<ExecutionOutcome> => {
    // Approvals and sub-flows wait for others; a command or an agent step is what runs at least once.
    const engine = input.steps;
    const executed =
      engine === undefined || spec.kind === 'approval' || spec.kind === 'flow'
        ? execute(spec, signal, deps)
        : // A recorded outcome answers this execution (its exec id is this one's).
          engine.step(stepKey(spec), () => execute(spec, signal, deps)).then((o) => ({ ...o, exec: spec.exec }));
    // A run step's success is the plan's own install: trusted before any later step starts.
    const running =
      spec.kind === 'run' && plansGates(plan)
        ? executed.then(async (o) => {
            if (o.status === 'succeeded') await trustDependencies({ workspace: deps.workspace, home, runId });
            return o;
          })
        : executed;
    inflight.add(running);
    void running.finally(() => inflight.delete(running));
    return running;
  };
  const loop = createRunLoop({
    plan,
    state,
    boot: input.boot,
    now: () => new Date().toISOString(),
    execute: execution,
    onEvent: (event, after) => {
      void store.append(event).catch(() => undefined);
      state = after;
      store.checkpoint(state, 'active');
      // Folded only when written (coalesced): the latest state wins, and the base's static fields
      // never change during the run.
      store.saveRecord(() => recordFromState(record, state, plan));
      logRunEvent(decisions, runId, event);
      noteHandoff(home, input.workspace.record, event, state, plan);
      observe({ type: 'event', runId, depth, event });
    },
  });
  function charge(spec: ExecutionSpec, cost: { turns: number; tokens: number; costUsd: number }): void {
    loop.send({ type: 'charge', step: spec.step, ...defined({ item: spec.item }), ...cost });
    input.parent?.charge(cost);
  }
  // A store that cannot go on (its log replaced or written by something else, a link planted in
  // the run's folder, a failed write) stops the run: it ends failed with that cause, and
  // nothing more runs on a log that no longer records it.
  let storeFailure: StepError | undefined;
  store.onFailure((error) => {
    storeFailure = {
      code: error instanceof NeoError ? error.code : 'STORE_WRITE_FAILED',
      message: error instanceof Error ? error.message : String(error),
      ...(error instanceof NeoError && error.hint !== undefined ? { hint: error.hint } : {}),
    };
    loop.send({ type: 'interrupt', reason: `the run's store failed: ${storeFailure.message}` });
  });
  const onAbort = () => loop.send({ type: 'interrupt', reason: 'interrupted (Ctrl-C)' });
  let stopWatching: (() => Promise<void>) | undefined;
  // Should the process ever reach its end with this run still running, the run ends failed with
  // the cause (or, killed by a second Ctrl-C, interrupted and resumable), in writes that need no
  // event loop.
  const closeWork = openWork({
    what: `run ${runId}`,
    abandon(cause, as) {
      const at = new Date().toISOString();
      const event: RunEvent | undefined =
        as === 'failed'
          ? { type: 'run.finished', status: 'failed', reason: { code: 'FLOW_ABANDONED', message: cause }, seq: 0, at }
          : state.status === 'interrupted'
            ? undefined
            : { type: 'run.interrupted', reason: cause, seq: 0, at };
      if (event !== undefined) {
        event.seq = state.seq + 1;
        void store.append(event).catch(() => undefined);
        state = reduce(state, event);
      }
      record = recordFromState(record, state, plan, { finished: true });
      store.settleNow(state, record);
      lock.release();
      void input.workspace.release();
    },
  });
  try {
    return await settleRun();
  } finally {
    closeWork();
    // Its executions are over (settled above): their shared output folder goes.
    closeStepOutputs(home, runId);
    await handoffWritten(runId);
    await store.close().catch(() => undefined);
    if (depth > 0) await decisions.close();
    lock.release();
  }

  /** Runs the loop to rest, then finishes or releases the workspace and writes the last checkpoint. */
  async function settleRun(): Promise<DriveResult> {
    try {
      // Watch before the first step starts, so no edit can slip in unseen.
      if (input.watch !== undefined) {
        stopWatching = await input.watch(
          (edited, hash) => {
            if (!loop.active) return;
            // The plan the loop will merge to (the same pure merge, on the same state) is
            // written first, so the `plan.updated` line pins the plan.json that is there.
            const merged = mergePlan(plan, edited, state);
            if (merged.added.length + merged.removed.length + merged.changed.length === 0) return;
            try {
              store.pinPlan(merged.plan);
            } catch {
              return; // the store's failure stops the run (onFailure above)
            }
            loop.send({ type: 'plan', plan: edited, hash });
            plan = loop.plan;
          },
          () => plan,
        );
      }
      loop.start();
      input.signal?.addEventListener('abort', onAbort, { once: true });
      if (input.signal?.aborted) onAbort();
      await loop.done;
    } finally {
      input.signal?.removeEventListener('abort', onAbort);
      await stopWatching?.();
      await settle(inflight);
    }
    if (storeFailure !== undefined) {
      // Not in the log (the store refuses every line now): in run.json, which says why it ended.
      const finished: RunEvent = {
        type: 'run.finished',
        status: 'failed',
        reason: storeFailure,
        seq: state.seq + 1,
        at: new Date().toISOString(),
      };
      state = reduce(state, finished);
      logRunEvent(decisions, runId, finished);
      observe({ type: 'event', runId, depth, event: finished });
    }
    let summary: WorkspaceSummary | undefined;
    if (state.status === 'interrupted') {
      await input.workspace.release();
    } else {
      summary = await input.workspace.finish({ status: state.status, flow: plan.name, runId });
    }
    record = recordFromState(record, state, plan, { finished: true, ...defined({ summary }) });
    store.checkpoint(state, 'settled');
    store.saveRecord(record);
    return { state, plan, record, ...defined({ summary }) };
  }
}

async function settle(inflight: Set<Promise<unknown>>): Promise<void> {
  if (inflight.size === 0) return;
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([
    Promise.allSettled([...inflight]),
    new Promise((resolve) => (timer = setTimeout(resolve, CLEANUP_MS))),
  ]);
  if (timer) clearTimeout(timer);
}
