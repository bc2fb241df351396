/**
 * Decision logs (seed 004 §8): a named event with fields. Stores and the registry log instead of
 * throwing when a side effect fails, so an op never breaks on a disk problem.
 */
export interface SessionLog {
  info(event: string, fields?: Record<string, unknown>): void;
  warn(event: string, fields?: Record<string, unknown>): void;
}

/** Drops info, prints warnings to stderr as one line each. */
export const stderrLog: SessionLog = {
  info() {},
  warn(event, fields) {
    process.stderr.write(`neo: warning: ${formatLogLine(event, fields)}\n`);
  },
};

/** Logs nothing (tests that assert no output, benchmarks). */
export const silentLog: SessionLog = { info() {}, warn() {} };

/** `event key=value …`, values JSON-encoded when they are not plain words. */
export function formatLogLine(event: string, fields: Record<string, unknown> = {}): string {
  const parts = [event];
  for (const [key, value] of Object.entries(fields)) {
    if (value === undefined) continue;
    const text =
      typeof value === 'string' && /^[\w./:@-]+$/.test(value)
        ? value
        : JSON.stringify(value instanceof Error ? value.message : value);
    parts.push(`${key}=${text}`);
  }
  return parts.join(' ');
}
