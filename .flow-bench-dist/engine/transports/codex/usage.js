/**
 * Per-turn token usage from `thread/tokenUsage/updated`, whose `total` is the thread's running
 * total and `last` the latest model call. The turn's usage is the growth of `total` since the
 * turn began; the first report fixes the baseline as total − last, which is right for a fresh
 * thread (0) and for a resumed one (its history).
 */
export class TokenUsageTracker {
    #baseline;
    #latest;
    observe(tokenUsage) {
        if (typeof tokenUsage !== 'object' || tokenUsage === null)
            return;
        const { total, last } = tokenUsage;
        const totals = read(total ?? last);
        if (totals === undefined)
            return;
        if (this.#baseline === undefined)
            this.#baseline = minus(totals, read(last) ?? totals);
        this.#latest = totals;
    }
    /** The usage since the previous call (undefined when Codex reported nothing). */
    takeTurnUsage() {
        if (this.#latest === undefined || this.#baseline === undefined)
            return undefined;
        const usage = minus(this.#latest, this.#baseline);
        this.#baseline = this.#latest;
        return usage;
    }
}
function read(b) {
    if (b === undefined)
        return undefined;
    const n = (v) => (typeof v === 'number' && Number.isFinite(v) ? v : 0);
    return { inputTokens: n(b.inputTokens), cachedInputTokens: n(b.cachedInputTokens), outputTokens: n(b.outputTokens), reasoningTokens: n(b.reasoningOutputTokens) };
}
function minus(a, b) {
    return {
        inputTokens: Math.max(0, a.inputTokens - b.inputTokens),
        cachedInputTokens: Math.max(0, a.cachedInputTokens - b.cachedInputTokens),
        outputTokens: Math.max(0, a.outputTokens - b.outputTokens),
        reasoningTokens: Math.max(0, a.reasoningTokens - b.reasoningTokens),
    };
}
