/**
 * The limits every command a flow runs has unless its step says otherwise: a run step's command,
 * its `loop.untilRun` check and an agent step's gate. A command that ignores them would hold a
 * run (and the machine's processes) forever; they are compiled into the plan so `--dry-run` shows
 * them, and applied again where a command starts for a plan compiled without them.
 */

/** A run step's command, a loop check or a gate with no `timeout` of its own: 30 minutes. */
export const DEFAULT_COMMAND_TIMEOUT_MS = 30 * 60_000;

export { DEFAULT_MAX_PROCESSES } from '../../util/process-limits.js';
