import type { BudgetMoment } from '../core/budget.js';
import type { ExecutionOutcome } from '../core/execution.js';
import type { StepError } from '../core/state.js';

/** How often a running agent step's time budget is looked at. */
const CLOCK_MS = 1000;

/**
 * Stops an agent step the moment its run crosses a budget, whatever drives the step. Each charge
 * is checked as it lands: a model call's spending reported while the turn streams (`mid-turn`:
 * the step's signal aborts and the driver interrupts the turn), or figures that arrive only with
 * the turn's end (`turn-end`: too late to stop, so the overspend is said as such). A time budget
 * is looked at every second, so a long turn is stopped too.
 */
export class BudgetGuard {
  readonly signal: AbortSignal;
  readonly #controller = new AbortController();
  readonly #check: (moment: BudgetMoment) => StepError | undefined;
  readonly #timer: NodeJS.Timeout;
  #tripped: StepError | undefined;

  constructor(outer: AbortSignal, check: (moment: BudgetMoment) => StepError | undefined) {
    this.#check = check;
    this.signal = AbortSignal.any([outer, this.#controller.signal]);
    this.#timer = setInterval(() => this.#look('mid-turn'), CLOCK_MS);
    // A watcher, not work: it must not keep the process alive by itself.
    this.#timer.unref();
  }

  /** After a charge: `turnEnd` when it carried a finished turn's figures. */
  charged(turnEnd: boolean): void {
    this.#look(turnEnd ? 'turn-end' : 'mid-turn');
  }

  /** The driver's outcome, or the budget's failure when a budget stopped the step. */
  verdict(outcome: Omit<ExecutionOutcome, 'exec'>): Omit<ExecutionOutcome, 'exec'> {
    if (this.#tripped === undefined) return outcome;
    return {
      ...outcome,
      status: 'failed',
      verdict: 'over-budget',
      error: this.#tripped,
      outputs: { ...outcome.outputs, verdict: 'over-budget' },
    };
  }

  close(): void {
    clearInterval(this.#timer);
  }

  #look(moment: BudgetMoment): void {
    if (this.#tripped !== undefined || this.signal.aborted) return;
    const over = this.#check(moment);
    if (over === undefined) return;
    this.#tripped = over;
    this.#controller.abort(over);
  }
}
