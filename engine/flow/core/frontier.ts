import type { RunEvent } from './events.js';
import type { CompiledPlan, PlanStep } from './plan.js';
import { isTerminal, type RunState, type StepState, type UnitState } from './state.js';

/** A live execution's place: its step and, in a foreach, its item. */
export interface ExecutionPlace {
  step: string;
  item: number | undefined;
}

/**
 * What the scheduler asks of a run at every transition, kept so that it need not scan every
 * step: the pending steps whose needs have all settled (what the gate looks at, including those
 * waiting for a slot), the running foreach steps with items still to start, how many units hold a
 * slot, how many steps are not over yet, and which unit each live execution is.
 *
 * It is a function of the plan and the state alone. Within a transition it follows each event
 * (`apply`: the event's step, and its dependents when it ends), and it is handed on with the state
 * the transition led to (`keep`), so the next transition takes it over instead of scanning: a
 * step's completion costs O(its dependents). A state it was not handed on with — a replay, a test
 * reusing one state for two inputs, a transition that threw — gets one computed afresh, the same
 * answer at O(steps) once. Events that change many steps at once (a start, a resume, a plan
 * update) recompute it too.
 */
export class Frontier {
  /** Pending steps whose needs are all over (a need the state does not know does not hold one up). */
  readonly unblocked = new Set<string>();
  /** Running foreach steps with items not started yet. */
  readonly fanning = new Set<string>();
  /** Live executions (running or waiting units) by exec id. */
  readonly executions = new Map<string, ExecutionPlace>();
  /** Running units that take one of maxParallel's slots (approvals wait on a person, not a slot). */
  running = 0;
  /** Steps not over yet. */
  open = 0;
  #plan: CompiledPlan;
  /** Steps put in `unblocked` since the last `takeUnblocked`, in the order they came. */
  #added: string[] = [];

  private constructor(plan: CompiledPlan, state: RunState) {
    this.#plan = plan;
    this.#recompute(state);
  }

  /** The frontier handed on with `state` for `plan`, or one computed afresh. */
  static take(plan: CompiledPlan, state: RunState): Frontier {
    const kept = handedOn.get(state);
    if (kept !== undefined) {
      handedOn.delete(state); // taken over: it follows the next transition's events
      if (kept.#plan === plan) return kept;
    }
    return new Frontier(plan, state);
  }

  /** Hands this frontier on with the state it now describes, for the next transition to take. */
  keep(state: RunState): void {
    handedOn.set(state, this);
  }

  /** The plan's steps, in plan order, out of a set of ids. */
  inOrder(ids: Iterable<string>): PlanStep[] {
    const index = indexOf(this.#plan);
    return [...ids]
      .map((id) => index.byId.get(id))
      .filter((step): step is PlanStep => step !== undefined)
      .sort((a, b) => index.order.get(a.id)! - index.order.get(b.id)!);
  }

  /** A step's place in the plan's order. */
  order(step: PlanStep): number {
    return indexOf(this.#plan).order.get(step.id) ?? -1;
  }

  /** The steps put in `unblocked` since the last call (a gate pass takes those still ahead of it). */
  takeUnblocked(): PlanStep[] {
    const added = this.inOrder(this.#added);
    this.#added = [];
    return added;
  }

  /** Follows one event from `before` to `after` (the state it led to) under `plan`. */
  apply(plan: CompiledPlan, before: RunState, after: RunState, event: RunEvent): void {
    if (plan !== this.#plan || wide(event)) {
      this.#plan = plan;
      this.#recompute(after);
      return;
    }
    if (!('step' in event)) return;
    const id = event.step;
    const was = before.steps.get(id);
    const now = after.steps.get(id);
    this.#count(id, was, -1);
    this.#count(id, now, +1);
    this.#place(after, id);
    const ended = was !== undefined && !isTerminal(was.status);
    if (ended && now !== undefined && isTerminal(now.status))
      for (const dependent of indexOf(plan).dependents.get(id) ?? []) this.#place(after, dependent.id);
  }

  #recompute(state: RunState): void {
    this.unblocked.clear();
    this.fanning.clear();
    this.executions.clear();
    this.running = 0;
    this.open = 0;
    for (const [id, step] of state.steps.entries()) {
      this.#count(id, step, +1);
      this.#place(state, id);
    }
  }

  /** Adds (`sign` +1) or removes (-1) what one step's state counts: slots, openness, executions, items. */
  #count(id: string, step: StepState | undefined, sign: 1 | -1): void {
    if (step === undefined) return;
    if (!isTerminal(step.status)) this.open += sign;
    const approval = indexOf(this.#plan).approvals.has(id);
    // A plain step is its own one unit.
    const units: Array<[UnitState, number | undefined]> =
      step.units === undefined ? [[step, undefined]] : step.units.map((unit, item) => [unit, item]);
    for (const [unit, item] of units) {
      if (!approval && unit.status === 'running') this.running += sign;
      if (unit.exec === undefined || (unit.status !== 'running' && unit.status !== 'waiting')) continue;
      if (sign > 0) this.executions.set(unit.exec, { step: id, item });
      else this.executions.delete(unit.exec);
    }
    if (step.status === 'running' && step.units?.some((unit) => unit.status === 'pending') === true) {
      if (sign > 0) this.fanning.add(id);
      else this.fanning.delete(id);
    }
  }

  /** Puts step `id` in `unblocked` or takes it out, by its state in `state`. */
  #place(state: RunState, id: string): void {
    const step = indexOf(this.#plan).byId.get(id);
    if (step !== undefined && state.steps.get(id)?.status === 'pending' && needsOver(state, step)) {
      if (!this.unblocked.has(id)) this.#added.push(id);
      this.unblocked.add(id);
    } else this.unblocked.delete(id);
  }
}

/** The plan's step `id`, found without a scan. */
export function planStep(plan: CompiledPlan, id: string): PlanStep | undefined {
  return indexOf(plan).byId.get(id);
}

/** Whether every step `step` needs is over (a need not in the state does not hold it up). */
export function needsOver(state: RunState, step: PlanStep): boolean {
  for (const id of step.needs) {
    const need = state.steps.get(id);
    if (need !== undefined && !isTerminal(need.status)) return false;
  }
  return true;
}

/** Events that change many steps at once: the frontier is computed afresh after them. */
function wide(event: RunEvent): boolean {
  return event.type === 'run.started' || event.type === 'run.resumed' || event.type === 'plan.updated';
}

const handedOn = new WeakMap<RunState, Frontier>();

interface PlanIndex {
  byId: Map<string, PlanStep>;
  order: Map<string, number>;
  dependents: Map<string, PlanStep[]>;
  approvals: Set<string>;
}

const indexes = new WeakMap<CompiledPlan, PlanIndex>();

/** Lookups over a plan's steps, built once per plan (a compiled plan is never changed in place). */
function indexOf(plan: CompiledPlan): PlanIndex {
  let index = indexes.get(plan);
  if (index !== undefined) return index;
  index = { byId: new Map(), order: new Map(), dependents: new Map(), approvals: new Set() };
  for (const [i, step] of plan.steps.entries()) {
    index.byId.set(step.id, step);
    index.order.set(step.id, i);
    if (step.kind === 'approval') index.approvals.add(step.id);
    for (const need of step.needs) {
      const list = index.dependents.get(need) ?? [];
      list.push(step);
      index.dependents.set(need, list);
    }
  }
  indexes.set(plan, index);
  return index;
}
