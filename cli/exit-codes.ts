import { FailureError, InterruptedError, NeoError, UsageError } from '../engine/util/errors.js';

/** Exit codes, mapped in this one place. */
export const EXIT = {
  ok: 0,
  failed: 1,
  usage: 2,
  internal: 70,
  interrupted: 130,
} as const;

export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

/** The exit code for an error that escaped a command. */
export function exitCodeFor(error: unknown): ExitCode {
  if (error instanceof InterruptedError) return EXIT.interrupted;
  if (error instanceof UsageError) return EXIT.usage;
  if (error instanceof FailureError) return EXIT.failed;
  if (isCommanderError(error)) return error.exitCode === 0 ? EXIT.ok : EXIT.usage;
  if (error instanceof NeoError) return EXIT.failed;
  return EXIT.internal;
}

function isCommanderError(error: unknown): error is { code: string; exitCode: number } {
  return (
    typeof error === 'object' &&
    error !== null &&
    'code' in error &&
    typeof (error as { code: unknown }).code === 'string' &&
    (error as { code: string }).code.startsWith('commander.')
  );
}
