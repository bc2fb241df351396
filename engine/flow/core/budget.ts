import type { PlanBudgets } from './plan.js';
import type { Ledger, StepError } from './state.js';

/**
 * When a budget is checked. `before` a step or turn starts; `mid-turn` when a backend reports a
 * model call's spending while the turn streams (the turn is then interrupted); `turn-end` when
 * the figures arrive only with the turn's end, too late to stop it (an overspend, said as such).
 */
export type BudgetMoment = 'before' | 'mid-turn' | 'turn-end';

/**
 * Whether the run may go on. Checked before a step starts and before each agent turn: with
 * `newTurn`, a turn that would go past maxTurns, or any spending at or past a limit, stops the
 * run; without it (a command step) only a limit already passed does. `liveWallMs` is the time
 * since the last recorded event, not yet in the ledger. With `moment` (inside a turn), a limit
 * already passed is reported as crossed then.
 */
export function budgetExceeded(
  budgets: PlanBudgets,
  ledger: Ledger,
  options: { newTurn: boolean; liveWallMs?: number; moment?: BudgetMoment },
): StepError | undefined {
  const newTurn = options.newTurn && (options.moment ?? 'before') === 'before';
  const over = (used: number, max: number | undefined) => max !== undefined && (newTurn ? used >= max : used > max);
  const say = (limit: string, detail: string) => exceeded(limit, detail, options.moment ?? 'before');
  if (
    budgets.maxTurns !== undefined &&
    (newTurn ? ledger.turns + 1 > budgets.maxTurns : ledger.turns > budgets.maxTurns)
  )
    return say('maxTurns', `${ledger.turns} turns used of ${budgets.maxTurns}`);
  if (over(ledger.costUsd, budgets.maxCostUsd))
    return say('maxCostUsd', `$${ledger.costUsd.toFixed(4)} spent of $${budgets.maxCostUsd}`);
  if (over(ledger.tokens, budgets.maxTokens))
    return say('maxTokens', `${ledger.tokens} tokens used of ${budgets.maxTokens}`);
  const wall = ledger.wallMs + (options.liveWallMs ?? 0);
  if (budgets.maxDurationMs !== undefined && wall >= budgets.maxDurationMs)
    return say('maxDuration', `${Math.round(wall / 1000)}s of ${Math.round(budgets.maxDurationMs / 1000)}s`);
  return undefined;
}

function exceeded(limit: string, detail: string, moment: BudgetMoment): StepError {
  const message =
    moment === 'mid-turn'
      ? `budget ${limit} crossed mid-turn (${detail}); the turn was interrupted and the run stopped`
      : moment === 'turn-end'
        ? `budget ${limit} overspent (${detail}): the backend reported the turn's spending only at its end, too late to stop it; the run stopped`
        : `budget ${limit} reached (${detail}); the run stopped before starting more work`;
  return { code: 'FLOW_BUDGET_EXCEEDED', message };
}
