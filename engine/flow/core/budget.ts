import type { PlanBudgets } from './plan.js';
import type { Ledger, StepError } from './state.js';

/**
 * Whether the run may go on. Checked before a step starts and before each agent turn: with
 * `newTurn`, a turn that would go past maxTurns, or any spending at or past a limit, stops the
 * run; without it (a command step) only a limit already passed does. `liveWallMs` is the time
 * since the last recorded event, not yet in the ledger.
 */
export function budgetExceeded(
  budgets: PlanBudgets,
  ledger: Ledger,
  options: { newTurn: boolean; liveWallMs?: number },
): StepError | undefined {
  const over = (used: number, max: number | undefined) =>
    max !== undefined && (options.newTurn ? used >= max : used > max);
  if (
    budgets.maxTurns !== undefined &&
    (options.newTurn ? ledger.turns + 1 > budgets.maxTurns : ledger.turns > budgets.maxTurns)
  ) {
    return exceeded('maxTurns', `${ledger.turns} turns used of ${budgets.maxTurns}`);
  }
  if (over(ledger.costUsd, budgets.maxCostUsd))
    return exceeded('maxCostUsd', `$${ledger.costUsd.toFixed(4)} spent of $${budgets.maxCostUsd}`);
  if (over(ledger.tokens, budgets.maxTokens))
    return exceeded('maxTokens', `${ledger.tokens} tokens used of ${budgets.maxTokens}`);
  const wall = ledger.wallMs + (options.liveWallMs ?? 0);
  if (budgets.maxDurationMs !== undefined && wall >= budgets.maxDurationMs) {
    return exceeded('maxDuration', `${Math.round(wall / 1000)}s of ${Math.round(budgets.maxDurationMs / 1000)}s`);
  }
  return undefined;
}

function exceeded(limit: string, detail: string): StepError {
  return {
    code: 'FLOW_BUDGET_EXCEEDED',
    message: `budget ${limit} reached (${detail}); the run stopped before starting more work`,
  };
}
