import { NeoError } from '../engine/util/errors.js';
import { terminalSafe } from '../engine/util/terminal-text.js';
import { painter, useColor, type CommandIO } from './io.js';
import { EXIT, exitCodeFor } from './exit-codes.js';
import { asInvoked } from './invocation.js';

/** One clear message for an error that reached the top: code, message, hint. */
export function formatError(error: unknown, io: CommandIO): string {
  const p = painter(useColor(io.stderr, io.env));
  // A message may quote what an agent, a tool or a project file said: printed through the sanitiser.
  if (error instanceof NeoError) {
    const lines = [`${p.red(`error[${error.code}]`)}: ${terminalSafe(asInvoked(error.message))}`];
    if (error.hint) lines.push(`  ${p.cyan('hint')}: ${terminalSafe(asInvoked(error.hint))}`);
    return lines.join('\n');
  }
  const internal = exitCodeFor(error) === EXIT.internal;
  const message =
    error instanceof Error
      ? internal && io.env.NEO_DEBUG
        ? (error.stack ?? error.message)
        : error.message
      : String(error);
  return internal
    ? `${p.red('internal error')}: ${terminalSafe(message)}\n  please report this; set NEO_DEBUG=1 for a stack trace`
    : terminalSafe(message);
}
