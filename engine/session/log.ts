import { formatLogLine } from '../util/log-line.js';

export { formatLogLine };

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
