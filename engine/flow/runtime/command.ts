import { spawnProcess, type ProcessResult } from '../../execution/index.js';

/** One shell command to run: the user's own text, values only through `env`. */
export interface CommandSpec {
  command: string;
  cwd: string;
  /** Added to the process environment. */
  env: Record<string, string>;
  timeoutMs?: number;
  /** Kill the command when it writes nothing for this long. */
  idleTimeoutMs?: number;
  signal?: AbortSignal;
  /** Called with each chunk of output (stdout and stderr). */
  onOutput?: (chunk: string) => void;
}

const KILL_GRACE_MS = 2000;

/**
 * Runs `/bin/sh -c <command>` (the plan author's own command as the shell's single argument)
 * through the process module: its own group, bounded tails, and a timeout, an idle timeout or
 * an abort kills the whole tree.
 */
export function runCommand(spec: CommandSpec): Promise<ProcessResult> {
  return spawnProcess(['/bin/sh', '-c', spec.command], {
    cwd: spec.cwd,
    env: { ...process.env, ...spec.env },
    graceMs: KILL_GRACE_MS,
    label: 'sh -c',
    ...(spec.timeoutMs === undefined ? {} : { timeoutMs: spec.timeoutMs }),
    ...(spec.idleTimeoutMs === undefined ? {} : { idleTimeoutMs: spec.idleTimeoutMs }),
    ...(spec.signal === undefined ? {} : { signal: spec.signal }),
    ...(spec.onOutput === undefined ? {} : { onOutput: spec.onOutput }),
  }).result;
}
