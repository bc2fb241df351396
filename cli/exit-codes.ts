import { FailureError, InterruptedError, NeoError, UsageError } from '../engine/util/errors.js';

/**
 * Exit codes, mapped in this one place. 0, 1, 2, 70 and 130 follow the usual conventions
 * (sysexits' EX_SOFTWARE, 128 + SIGINT); 3–6 tell a CI job why a run failed without parsing.
 */
export const EXIT = {
  ok: 0,
  /** A step failed for another reason (a command exited non-zero, an approval was rejected…). */
  failed: 1,
  /** Bad usage, a bad definition or bad inputs: nothing ran. */
  usage: 2,
  /** A verify gate still failed after its attempts. */
  gateFailed: 3,
  /** A budget was spent (or overspent). */
  budgetSpent: 4,
  /** The agent or its provider failed, or went silent (stalled). */
  agentFailed: 5,
  /** An agent step that had to change files changed none. */
  noChange: 6,
  /** A sandbox the flow asks for is unavailable here (not installed, user namespaces off): nothing ran. */
  sandboxUnavailable: 7,
  /**
   * The run's store cannot be believed (a file failed its MAC, a planted link, a run recorded
   * before neo authenticated runs): neo acted on nothing it read from it.
   */
  storeUntrusted: 8,
  /**
   * The dbos engine's database cannot be reached, or holds another schema version; or the run's
   * git remote cannot be reached or is no git repository: nothing was done.
   */
  engineUnavailable: 9,
  internal: 70,
  interrupted: 130,
} as const;

export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

/** What each code means, in order: `neo flow run --help` and docs/flows.md list these. */
export const EXIT_MEANINGS: ReadonlyArray<readonly [ExitCode, string]> = [
  [EXIT.ok, 'the run succeeded: every step done and verified'],
  [EXIT.failed, 'a step failed (a command exited non-zero, an approval was rejected, …)'],
  [EXIT.usage, 'bad usage, definition or input: nothing ran'],
  [EXIT.gateFailed, 'a verify gate still failed after its attempts'],
  [EXIT.budgetSpent, 'a budget was spent or overspent'],
  [EXIT.agentFailed, 'the agent or its provider failed, or the agent stalled'],
  [EXIT.noChange, 'an agent step that had to change files changed none'],
  [EXIT.sandboxUnavailable, 'a sandbox the flow asks for is unavailable here: nothing ran'],
  [EXIT.storeUntrusted, "the run's store was tampered with (or cannot be authenticated): neo acted on nothing in it"],
  [
    EXIT.engineUnavailable,
    "the dbos engine's database (or the run's git remote) is unreachable or at another schema version: nothing was done",
  ],
  [EXIT.internal, 'internal error in neo (please report it)'],
  [EXIT.interrupted, 'interrupted (Ctrl-C); `neo flow resume` continues it'],
];

/** Failure codes (or their area prefix, ending in `_`) that have an exit code of their own. */
const CAUSES: ReadonlyArray<readonly [string, ExitCode]> = [
  ['FLOW_GATE_FAILED', EXIT.gateFailed],
  ['FLOW_MAX_ROUNDS', EXIT.gateFailed],
  ['FLOW_BUDGET_EXCEEDED', EXIT.budgetSpent],
  ['FLOW_NO_CHANGE', EXIT.noChange],
  ['FLOW_AGENT_ERROR', EXIT.agentFailed],
  ['FLOW_AGENT_FAILED', EXIT.agentFailed],
  ['FLOW_STEP_STALLED', EXIT.agentFailed],
  ['TRANSPORT_', EXIT.agentFailed],
  ['SESSION_', EXIT.agentFailed],
  ['AGENT_', EXIT.agentFailed],
  ['FLOW_INTERRUPTED', EXIT.interrupted],
  ['DEF_', EXIT.usage],
  ['FLOW_PLAN_', EXIT.usage],
  ['FLOW_INPUT_', EXIT.usage],
  ['SANDBOX_UNAVAILABLE', EXIT.sandboxUnavailable],
  ['STORE_TAMPERED', EXIT.storeUntrusted],
  ['STORE_UNAUTHENTICATED', EXIT.storeUntrusted],
  ['STORE_CORRUPT', EXIT.storeUntrusted],
  ['STORE_KEY_UNREADABLE', EXIT.storeUntrusted],
  ['ENGINE_DB_UNREACHABLE', EXIT.engineUnavailable],
  ['ENGINE_DB_SCHEMA', EXIT.engineUnavailable],
  ['ENGINE_DB_UNAVAILABLE', EXIT.engineUnavailable],
  ['ENGINE_DB_START_FAILED', EXIT.engineUnavailable],
  ['ENGINE_REMOTE_UNREACHABLE', EXIT.engineUnavailable],
];

/** The exit code a failure's code means (a run's cause, a step's error): 1 when none is specific. */
export function exitCodeForCause(code: string | undefined): ExitCode {
  if (code === undefined) return EXIT.failed;
  const match = CAUSES.find(([cause]) => (cause.endsWith('_') ? code.startsWith(cause) : code === cause));
  return match?.[1] ?? EXIT.failed;
}

/** The table for `--help`: one line per code. */
export function exitCodesHelp(): string {
  return [
    '',
    'Exit codes:',
    ...EXIT_MEANINGS.map(([code, meaning]) => `  ${String(code).padStart(3)}  ${meaning}`),
  ].join('\n');
}

/** The exit code for an error that escaped a command. */
export function exitCodeFor(error: unknown): ExitCode {
  if (error instanceof InterruptedError) return EXIT.interrupted;
  if (error instanceof UsageError) return EXIT.usage;
  if (error instanceof FailureError) return EXIT.failed;
  if (isCommanderError(error)) return error.exitCode === 0 ? EXIT.ok : EXIT.usage;
  if (error instanceof NeoError) {
    const code = exitCodeForCause(error.code);
    return code === EXIT.sandboxUnavailable || code === EXIT.storeUntrusted || code === EXIT.engineUnavailable
      ? code
      : EXIT.failed;
  }
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
