import type { RunEvent } from './events.js';
import { isTerminal, pendingUnit, type RunState, type StepState, type UnitState } from './state.js';
import { StepTable } from './step-table.js';

/**
 * Applies one event to a run's state. Pure and total: the run loop changes state only through
 * it, and a resume replays events.jsonl through it to rebuild exactly what was persisted.
 */
export function reduce(state: RunState, event: RunEvent): RunState {
  const next: RunState = { ...state, seq: event.seq, lastAt: event.at };
  // Wall time counts the gaps between events of one process; a resume starts a new segment.
  if (event.type !== 'run.resumed' && state.lastAt !== undefined) {
    const gap = Date.parse(event.at) - Date.parse(state.lastAt);
    if (gap > 0) next.ledger = { ...state.ledger, wallMs: state.ledger.wallMs + gap };
  }
  switch (event.type) {
    case 'run.started': {
      const steps = StepTable.of(event.steps.map((id) => [id, state.steps.get(id) ?? pendingUnit()]));
      return { ...next, steps, inputs: event.inputs, env: event.env, run: event.run };
    }
    case 'run.resumed': {
      const steps = event.rebased === undefined ? next.steps : replanned(next.steps, event.rebased);
      return resumed({ ...next, steps }, event.reset);
    }
    case 'step.skipped':
      return withStep(next, event.step, (s) => ({
        ...s,
        status: 'skipped',
        skipReason: event.reason,
        endedAt: event.at,
      }));
    case 'step.expanded':
      return withStep(next, event.step, (s) => ({
        ...s,
        status: 'running',
        startedAt: event.at,
        items: event.items,
        units: event.items.map(() => pendingUnit()),
      }));
    case 'step.started':
      return withUnit(next, event.step, event.item, (u) => {
        const started: UnitState = {
          ...u,
          status: 'running',
          exec: event.exec,
          attempt: event.attempt,
          iteration: event.iteration,
          executions: u.executions + 1,
          startedAt: u.startedAt ?? event.at,
        };
        delete started.delayMs;
        return started;
      });
    case 'step.retrying':
      return withUnit(next, event.step, event.item, (u) => ({
        ...withoutExec(u),
        status: 'pending',
        attempt: event.attempt,
        delayMs: event.delayMs,
        error: event.error,
      }));
    case 'step.iterated':
      return withUnit(next, event.step, event.item, (u) => ({
        ...withoutExec(u),
        status: 'pending',
        attempt: 1,
        iteration: event.iteration,
        outputs: event.outputs,
      }));
    case 'step.completed':
      return withUnit(next, event.step, event.item, (u) => {
        const done: UnitState = { ...withoutExec(u), status: event.status, endedAt: event.at };
        if (event.outputs !== undefined) done.outputs = event.outputs;
        if (event.verdict !== undefined) done.verdict = event.verdict;
        if (event.error !== undefined) done.error = event.error;
        else delete done.error;
        return done;
      });
    case 'ledger.charged':
      return {
        ...next,
        // Cents of cents are noise; rounding keeps sums of per-turn costs readable and stable.
        ledger: {
          ...next.ledger,
          turns: next.ledger.turns + event.turns,
          tokens: next.ledger.tokens + event.tokens,
          costUsd: Math.round((next.ledger.costUsd + event.costUsd) * 1e8) / 1e8,
        },
      };
    case 'run.stopping':
      return { ...next, stopping: event.error };
    case 'run.interrupted':
      return { ...next, status: 'interrupted', reason: { code: 'FLOW_INTERRUPTED', message: event.reason } };
    case 'run.finished': {
      const finished: RunState = { ...next, status: event.status };
      if (event.reason !== undefined) finished.reason = event.reason;
      else delete finished.reason;
      return finished;
    }
    case 'plan.updated':
      return { ...next, steps: replanned(next.steps, event) };
  }
}

/** Folds a list of events from a fresh state. */
export function replay(initial: RunState, events: readonly RunEvent[]): RunState {
  let state = initial;
  for (const event of events) state = reduce(state, event);
  return state;
}

/**
 * The steps of a merged plan: the removed ones gone, the added ones pending at the end. The
 * table's order changes only here and at `run.started` (both O(steps), once per plan).
 */
function replanned(steps: StepTable, change: { removed: readonly string[]; added: readonly string[] }): StepTable {
  return steps.without(change.removed).adding(change.added.map((id) => [id, pendingUnit()]));
}

function resumed(state: RunState, reset: readonly string[]): RunState {
  const steps = StepTable.of(
    state.steps
      .entries()
      .map(([id, step]) => [
        id,
        reset.includes(id) ? { ...pendingUnit(), executions: step.executions } : resumeStep(step),
      ]),
  );
  const out: RunState = { ...state, status: 'running', steps };
  delete out.reason;
  delete out.stopping;
  return out;
}

/**
 * What an unfinished step becomes when a new process takes over: an interrupted execution runs
 * again (same attempt); a failed or skipped step is tried afresh; a succeeded one is kept.
 */
function resumeStep(step: StepState): StepState {
  if (step.units !== undefined) {
    if (step.status === 'succeeded') return step;
    const units = step.units.map((u) => (u.status === 'succeeded' ? u : resumeUnit(u)));
    const out: StepState = { ...step, status: 'running', units };
    delete out.error;
    return out;
  }
  if (step.status === 'succeeded') return step;
  if (step.status === 'running' || step.status === 'waiting') return { ...withoutExec(step), status: 'pending' };
  if (isTerminal(step.status)) return { ...pendingUnit(), executions: step.executions };
  return step;
}

function resumeUnit(unit: UnitState): UnitState {
  if (unit.status === 'running' || unit.status === 'waiting') return { ...withoutExec(unit), status: 'pending' };
  return { ...pendingUnit(), executions: unit.executions };
}

function withoutExec<T extends UnitState>(unit: T): T {
  const out = { ...unit };
  delete out.exec;
  return out;
}

/** The state with one step updated: the table copies one chunk, not every step (step-table.ts). */
function withStep(state: RunState, id: string, update: (step: StepState) => StepState): RunState {
  const step = state.steps.get(id);
  if (step === undefined) return state;
  return { ...state, steps: state.steps.with(id, update(step)) };
}

function withUnit(
  state: RunState,
  id: string,
  item: number | undefined,
  update: (unit: UnitState) => UnitState,
): RunState {
  return withStep(state, id, (step) => {
    // update() spreads its argument, so a plain step keeps its step-only fields.
    if (item === undefined) return update(step) as StepState;
    const units = [...(step.units ?? [])];
    const unit = units[item];
    if (unit === undefined) return step;
    units[item] = update(unit);
    return { ...step, units };
  });
}
