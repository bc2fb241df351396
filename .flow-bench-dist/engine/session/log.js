/** Drops info, prints warnings to stderr as one line each. */
export const stderrLog = {
    info() { },
    warn(event, fields) {
        process.stderr.write(`neo: warning: ${formatLogLine(event, fields)}\n`);
    },
};
/** Logs nothing (tests that assert no output, benchmarks). */
export const silentLog = { info() { }, warn() { } };
/** `event key=value …`, values JSON-encoded when they are not plain words. */
export function formatLogLine(event, fields = {}) {
    const parts = [event];
    for (const [key, value] of Object.entries(fields)) {
        if (value === undefined)
            continue;
        const text = typeof value === 'string' && /^[\w./:@-]+$/.test(value) ? value : JSON.stringify(value instanceof Error ? value.message : value);
        parts.push(`${key}=${text}`);
    }
    return parts.join(' ');
}
