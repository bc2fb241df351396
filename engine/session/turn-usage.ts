import type { Usage } from '../transports/index.js';

/** Tokens and USD to charge to a budget now. */
export interface UsageCharge {
  tokens: number;
  costUsd: number;
}

/** Input plus output tokens: what a token budget counts. */
export function tokensOf(usage: Usage | undefined): number {
  return (usage?.inputTokens ?? 0) + (usage?.outputTokens ?? 0);
}

/**
 * A turn's spending as its backend reports it: `usage` events while the turn streams (one per
 * model call, a delta) and the turn's own figures when it ends. Each report yields what to
 * charge now; the end charges only what the in-turn reports left out, so nothing counts twice
 * whether a backend reports during the turn, only at its end, or both.
 */
export class TurnUsage {
  #tokens = 0;
  #costUsd = 0;

  /** A `usage` event inside the turn. */
  during(event: { usage?: Usage; costUsd?: number }): UsageCharge {
    const charge = { tokens: tokensOf(event.usage), costUsd: event.costUsd ?? 0 };
    this.#tokens += charge.tokens;
    this.#costUsd += charge.costUsd;
    return charge;
  }

  /** The turn's end (`turn_complete`, or `ended` closing it): the rest of its figures; starts the next turn. */
  end(event: { usage?: Usage; costUsd?: number }): UsageCharge {
    const charge = {
      tokens: Math.max(0, tokensOf(event.usage) - this.#tokens),
      costUsd: Math.max(0, Math.round(((event.costUsd ?? 0) - this.#costUsd) * 1e8) / 1e8),
    };
    this.reset();
    return charge;
  }

  /** A turn that ended without figures (it failed): the next one starts from nothing. */
  reset(): void {
    this.#tokens = 0;
    this.#costUsd = 0;
  }
}
