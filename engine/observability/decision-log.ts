/**
 * Decision logs (seed 004 §8) as JSON lines with levels: one object per decision, `at`, `level`,
 * `event` (a code_session_* / flow_step_* / learn_* name), `pid` and the decision's own fields.
 * Written to the folder of whatever runs the sessions (a flow run's folder, the daemon's), so
 * `neo flow logs <runId>` reads a run's narration back. Every line passes the one redactor
 * (util/redact.ts) before it is written: a decision quotes commands, gates and agents, and a
 * secret one of them printed is no more kept here than in the run's events. A log never throws
 * into the decision it records: a write that fails is dropped.
 */
import { readFile } from 'node:fs/promises';
import { JsonlAppender } from '../util/jsonl.js';
import { processRedact, redactDeep } from '../util/redact.js';

export type LogLevel = 'debug' | 'info' | 'warn' | 'error';
export const LOG_LEVELS: readonly LogLevel[] = ['debug', 'info', 'warn', 'error'];

/** The shape every area logs decisions through (the session area's SessionLog is this). */
export interface DecisionLog {
  info(event: string, fields?: Record<string, unknown>): void;
  warn(event: string, fields?: Record<string, unknown>): void;
}

export interface LogLine {
  at: string;
  level: LogLevel;
  event: string;
  pid: number;
  [field: string]: unknown;
}

/** A decision log appending JSON lines to `path`; `close()` flushes. */
export class JsonLinesLog implements DecisionLog {
  readonly path: string;
  readonly #appender: JsonlAppender;
  readonly #now: () => Date;
  #broken = false;

  constructor(path: string, options: { now?: () => Date } = {}) {
    this.path = path;
    this.#appender = new JsonlAppender(path);
    this.#now = options.now ?? (() => new Date());
  }

  info(event: string, fields?: Record<string, unknown>): void {
    this.write('info', event, fields);
  }

  warn(event: string, fields?: Record<string, unknown>): void {
    this.write('warn', event, fields);
  }

  write(level: LogLevel, event: string, fields: Record<string, unknown> = {}): void {
    if (this.#broken) return;
    try {
      const line = redactDeep(
        { ...plain(fields), at: this.#now().toISOString(), level, event, pid: process.pid },
        processRedact(),
      );
      this.#appender.append(line).catch(() => (this.#broken = true));
    } catch {
      // An unserializable field or a closed log: the decision goes on without its line.
    }
  }

  async close(): Promise<void> {
    await this.#appender.close().catch(() => undefined);
  }
}

/** Sends every line to each log (each one guarded). */
export function teeLogs(...logs: Array<DecisionLog | undefined>): DecisionLog {
  const list = logs.filter((l): l is DecisionLog => l !== undefined);
  const each = (fn: (log: DecisionLog) => void) => {
    for (const log of list) {
      try {
        fn(log);
      } catch {
        // One broken log does not silence the others.
      }
    }
  };
  return {
    info: (event, fields) => each((log) => log.info(event, fields)),
    warn: (event, fields) => each((log) => log.warn(event, fields)),
  };
}

/** The lines of a log file, at or above `level`; a torn or foreign line is skipped. */
export async function readLogLines(path: string, level: LogLevel = 'debug'): Promise<LogLine[]> {
  const text = await readFile(path, 'utf8');
  const min = LOG_LEVELS.indexOf(level);
  const lines: LogLine[] = [];
  for (const raw of text.split('\n')) {
    if (raw.trim() === '') continue;
    try {
      const line = JSON.parse(raw) as LogLine;
      if (typeof line.event === 'string' && LOG_LEVELS.indexOf(line.level) >= min) lines.push(line);
    } catch {
      // torn last line
    }
  }
  return lines;
}

/** Errors as their message; everything else as is. */
function plain(fields: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(fields)) {
    if (value === undefined) continue;
    out[key] = value instanceof Error ? value.message : value;
  }
  return out;
}
