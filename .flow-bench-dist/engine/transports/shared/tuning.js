export const DEFAULT_TUNING = { idleTimeoutMs: 10 * 60_000, startTimeoutMs: 60_000, killGraceMs: 3_000 };
/** Reads `idleTimeoutMs`, `startTimeoutMs`, `killGraceMs` from the options bag (positive numbers only). */
export function readTuning(options) {
    const bag = options.options ?? {};
    const pick = (key) => {
        const value = bag[key];
        return typeof value === 'number' && Number.isFinite(value) && value > 0 ? value : DEFAULT_TUNING[key];
    };
    return { idleTimeoutMs: pick('idleTimeoutMs'), startTimeoutMs: pick('startTimeoutMs'), killGraceMs: pick('killGraceMs') };
}
/** 400 → "0.4s", 60000 → "60s": durations in messages. */
export function formatSeconds(ms) {
    const seconds = ms / 1000;
    return `${seconds < 10 ? Math.round(seconds * 10) / 10 : Math.round(seconds)}s`;
}
