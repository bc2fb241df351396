export function emptyUsage() {
    return { inputTokens: 0, outputTokens: 0, cachedInputTokens: 0, reasoningTokens: 0 };
}
/** a + b, as a new object. */
export function addUsage(a, b) {
    return {
        inputTokens: a.inputTokens + b.inputTokens,
        outputTokens: a.outputTokens + b.outputTokens,
        cachedInputTokens: a.cachedInputTokens + b.cachedInputTokens,
        reasoningTokens: a.reasoningTokens + b.reasoningTokens,
    };
}
/** A finite, non-negative integer from an API's usage field, else 0. */
export function tokenCount(value) {
    return typeof value === 'number' && Number.isFinite(value) && value > 0 ? Math.floor(value) : 0;
}
