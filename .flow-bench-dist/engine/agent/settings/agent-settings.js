export const SETTING_DEFAULTS = {
    maxTurns: 50,
    idleTimeoutMs: 3 * 60_000,
    headersTimeoutMs: 10 * 60_000,
    maxRetries: 4,
    compactAtTokens: 120_000,
    keepTurns: 4,
    toolOutputMaxBytes: 32 * 1024,
    maxOutputTokens: 8192,
    execTimeoutMs: 2 * 60_000,
};
/** Deep-freezes plain objects and arrays (Secrets are already frozen). */
export function deepFreeze(value) {
    if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
        Object.freeze(value);
        for (const child of Object.values(value))
            deepFreeze(child);
    }
    return value;
}
