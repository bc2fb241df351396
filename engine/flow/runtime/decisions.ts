/**
 * A run's decision log: `runs/<runId>/decisions.jsonl`, JSON lines with levels (seed 004 §8).
 * The flow's own decisions (a step started, retried, completed with its verdict; the run
 * finished) are derived from its events; the code_session_* decisions of the run's session
 * service go to the same file (the top-level run's, shared by its sub-flows).
 * `neo flow logs <runId>` reads it back.
 */
import { join } from 'node:path';
import { JsonLinesLog } from '../../observability/index.js';
import type { RunEvent } from '../core/events.js';
import { failureOutput } from '../core/failure-output.js';
import { defined } from '../../util/defined.js';
import { environmentRedactor, redactDeep, type Redact } from '../../util/redact.js';

let redactor: Redact | undefined;
/**
 * The run process's redactor (util/redact.ts), as for the run's other files: a decision quotes
 * commands and what they printed, which may hold a secret.
 */
const redact: Redact = (text) => (redactor ??= environmentRedactor(process.env))(text);

export const DECISIONS_FILE = 'decisions.jsonl';

export function runDecisionLog(runDir: string): JsonLinesLog {
  return new JsonLinesLog(join(runDir, DECISIONS_FILE));
}

/** The decision an event stands for, if any. */
export function logRunEvent(sink: JsonLinesLog, runId: string, event: RunEvent): void {
  const log = {
    write: (level: Parameters<JsonLinesLog['write']>[0], name: string, fields: Record<string, unknown>) =>
      sink.write(level, name, redactDeep(fields, redact)),
  };
  const at = (e: { step: string; item?: number }) => ({
    runId,
    step: e.step,
    ...defined({ item: e.item }),
  });
  switch (event.type) {
    case 'step.started':
      log.write('info', 'flow_step_started', { ...at(event), attempt: event.attempt, exec: event.exec });
      return;
    case 'step.retrying':
      log.write('warn', 'flow_step_retrying', {
        ...at(event),
        attempt: event.attempt,
        delayMs: event.delayMs,
        code: event.error.code,
        message: event.error.message,
      });
      return;
    case 'step.completed': {
      const output = failureOutput(event.status, event.outputs);
      log.write(event.status === 'succeeded' ? 'info' : 'warn', 'flow_step_completed', {
        ...at(event),
        status: event.status,
        ...defined({ verdict: event.verdict }),
        ...(event.error === undefined
          ? {}
          : { code: event.error.code, message: event.error.message, ...defined({ hint: event.error.hint }) }),
        // Why it failed, in the check's or command's own last lines (capped).
        ...(output === undefined ? {} : { output: `${output.source}:\n${output.lines.join('\n')}` }),
      });
      return;
    }
    case 'run.finished':
      log.write(event.status === 'succeeded' ? 'info' : 'warn', 'flow_run_finished', {
        runId,
        status: event.status,
        ...(event.reason === undefined ? {} : { code: event.reason.code, message: event.reason.message }),
      });
      return;
    case 'run.interrupted':
      log.write('warn', 'flow_run_interrupted', { runId, reason: event.reason });
      return;
    default:
      return;
  }
}
