import type { Backend } from '../../definitions/index.js';
import type { Usage } from '../types.js';

/**
 * Turns a running total (Claude's total_cost_usd, ACP's usage_update cost) into per-turn
 * deltas. Summing the totals would count every earlier turn again.
 */
export class CumulativeCost {
  #seen: number | undefined;
  #atTurnStart = 0;

  /** Records the latest running total. */
  observe(total: number): void {
    if (Number.isFinite(total)) this.#seen = total;
  }

  /** The cost since the previous turn ended (undefined when no total was ever reported). */
  takeTurnDelta(): number | undefined {
    if (this.#seen === undefined) return undefined;
    const delta = Math.max(0, this.#seen - this.#atTurnStart);
    this.#atTurnStart = this.#seen;
    return roundUsd(delta);
  }
}

/**
 * USD for a turn's tokens from the descriptor's per-million prices. Input tokens include the
 * cached ones (OpenAI semantics), which are billed at `cachedInput` when the table has it.
 * Undefined when the model has no price: an unpriced model is never reported as free.
 */
export function usdForUsage(pricing: Backend['pricing'], model: string | undefined, usage: Usage): number | undefined {
  if (pricing === undefined || model === undefined) return undefined;
  const price = pricing[model] ?? pricing[model.replace(/^[^/]+\//, '')];
  if (price === undefined) return undefined;
  const input = usage.inputTokens ?? 0;
  const cached = Math.min(usage.cachedInputTokens ?? 0, input);
  const cachedRate = price.cachedInput ?? price.input;
  const usd =
    ((input - cached) * price.input + cached * cachedRate + (usage.outputTokens ?? 0) * price.output) / 1_000_000;
  return roundUsd(usd);
}

/** USD rounded to 1e-9, so sums of tiny deltas stay exact enough to compare. */
export function roundUsd(value: number): number {
  return Math.round(value * 1e9) / 1e9;
}
