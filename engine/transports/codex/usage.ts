import type { Usage } from '../types.js';

type Breakdown = {
  inputTokens?: unknown;
  cachedInputTokens?: unknown;
  outputTokens?: unknown;
  reasoningOutputTokens?: unknown;
};

/**
 * Per-turn token usage from `thread/tokenUsage/updated`, whose `total` is the thread's running
 * total and `last` the latest model call. The turn's usage is the growth of `total` since the
 * turn began; the first report fixes the baseline as total − last, which is right for a fresh
 * thread (0) and for a resumed one (its history).
 */
export class TokenUsageTracker {
  #baseline: Required<Usage> | undefined;
  #latest: Required<Usage> | undefined;

  /** Takes one update; returns what was spent since the previous one (undefined when it says nothing). */
  observe(tokenUsage: unknown): Usage | undefined {
    if (typeof tokenUsage !== 'object' || tokenUsage === null) return undefined;
    const { total, last } = tokenUsage as { total?: Breakdown; last?: Breakdown };
    const totals = read(total ?? last);
    if (totals === undefined) return undefined;
    if (this.#baseline === undefined) this.#baseline = minus(totals, read(last) ?? totals);
    const growth = minus(totals, this.#latest ?? this.#baseline);
    this.#latest = totals;
    return growth;
  }

  /** The usage since the previous call (undefined when Codex reported nothing). */
  takeTurnUsage(): Usage | undefined {
    if (this.#latest === undefined || this.#baseline === undefined) return undefined;
    const usage = minus(this.#latest, this.#baseline);
    this.#baseline = this.#latest;
    return usage;
  }
}

function read(b: Breakdown | undefined): Required<Usage> | undefined {
  if (b === undefined) return undefined;
  const n = (v: unknown): number => (typeof v === 'number' && Number.isFinite(v) ? v : 0);
  return {
    inputTokens: n(b.inputTokens),
    cachedInputTokens: n(b.cachedInputTokens),
    outputTokens: n(b.outputTokens),
    reasoningTokens: n(b.reasoningOutputTokens),
  };
}

function minus(a: Required<Usage>, b: Required<Usage>): Required<Usage> {
  return {
    inputTokens: Math.max(0, a.inputTokens - b.inputTokens),
    cachedInputTokens: Math.max(0, a.cachedInputTokens - b.cachedInputTokens),
    outputTokens: Math.max(0, a.outputTokens - b.outputTokens),
    reasoningTokens: Math.max(0, a.reasoningTokens - b.reasoningTokens),
  };
}
