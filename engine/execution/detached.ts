import { spawn, type ChildProcess } from 'node:child_process';
import type { Writable } from 'node:stream';

/**
 * Starts a process meant to outlive this one (the session daemon, a flow run resumed from the
 * control plane): its own session and group, never recorded in the live registry (so neither
 * this process's exit nor a sweep kills it), unref'd once the caller lets go. Everything else
 * goes through spawnProcess.
 */
export function spawnDetached(
  argv: readonly string[],
  options: { cwd: string; env: NodeJS.ProcessEnv; stderr: Writable | number; stdout?: Writable | number },
): ChildProcess {
  const [file, ...args] = argv;
  if (file === undefined) throw new Error('spawnDetached needs a program');
  return spawn(file, args, {
    cwd: options.cwd,
    env: options.env,
    detached: true,
    stdio: ['ignore', options.stdout ?? 'pipe', options.stderr],
  });
}
