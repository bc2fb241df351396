import { spawn } from 'node:child_process';
import { TailBuffer } from './tail-buffer.js';

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

/** How a command ended. Flags, not strings to match. */
export interface CommandResult {
  exitCode: number | undefined;
  /** The signal that killed it, if one did. */
  signal?: string;
  stdout: string;
  stderr: string;
  /** stdout and stderr interleaved, the last part. */
  output: string;
  timedOut: boolean;
  idle: boolean;
  aborted: boolean;
  /** The command could not start at all. */
  spawnError?: string;
  durationMs: number;
}

const TAIL_BYTES = 64 * 1024;
const KILL_GRACE_MS = 2000;

/**
 * Runs `/bin/sh -c <command>` in its own process group, keeping bounded tails of its output.
 * A timeout, an idle timeout or an abort kills the whole group (a shell's children too): TERM,
 * then KILL after a grace period.
 *
 * This is the one spawn on a flow's hot path, so it uses node:child_process directly: execa
 * costs more to import (~200 ms, 12 MB) than `node -e 0` takes to run, and a command step needs
 * none of its extras. The contract is the same: an argv array (the plan author's own command is
 * the shell's single argument), values only through the environment.
 */
export async function runCommand(spec: CommandSpec): Promise<CommandResult> {
  const started = Date.now();
  const stdout = new TailBuffer(TAIL_BYTES);
  const stderr = new TailBuffer(TAIL_BYTES);
  const output = new TailBuffer(TAIL_BYTES);
  let reason: 'timeout' | 'idle' | 'abort' | undefined;
  let killTimer: NodeJS.Timeout | undefined;
  let idleTimer: NodeJS.Timeout | undefined;
  let timeout: NodeJS.Timeout | undefined;
  let spawnError: string | undefined;
  const child = spawn('/bin/sh', ['-c', spec.command], {
    cwd: spec.cwd,
    env: { ...process.env, ...spec.env },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  const kill = (why: 'timeout' | 'idle' | 'abort') => {
    if (reason !== undefined) return;
    reason = why;
    signalGroup(child.pid, 'SIGTERM');
    killTimer = setTimeout(() => signalGroup(child.pid, 'SIGKILL'), KILL_GRACE_MS);
    killTimer.unref();
  };
  const armIdle = () => {
    if (spec.idleTimeoutMs === undefined) return;
    if (idleTimer) clearTimeout(idleTimer);
    idleTimer = setTimeout(() => kill('idle'), spec.idleTimeoutMs);
  };
  const onData = (target: TailBuffer) => (chunk: Buffer) => {
    const text = chunk.toString('utf8');
    target.push(text);
    output.push(text);
    spec.onOutput?.(text);
    armIdle();
  };
  child.stdout.on('data', onData(stdout));
  child.stderr.on('data', onData(stderr));
  const onAbort = () => kill('abort');
  try {
    const ended = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
      child.once('error', (error) => {
        spawnError = error.message;
        resolve({ code: null, signal: null });
      });
      child.once('close', (code, signal) => resolve({ code, signal }));
    });
    armIdle();
    if (spec.timeoutMs !== undefined) timeout = setTimeout(() => kill('timeout'), spec.timeoutMs);
    if (spec.signal?.aborted) onAbort();
    spec.signal?.addEventListener('abort', onAbort);
    const { code, signal } = await ended;
    return {
      exitCode: code ?? undefined,
      ...(signal === null ? {} : { signal }),
      stdout: stdout.text(),
      stderr: stderr.text(),
      output: output.text(),
      timedOut: reason === 'timeout',
      idle: reason === 'idle',
      aborted: reason === 'abort',
      ...(spawnError === undefined ? {} : { spawnError }),
      durationMs: Date.now() - started,
    };
  } finally {
    if (timeout) clearTimeout(timeout);
    if (idleTimer) clearTimeout(idleTimer);
    if (killTimer) clearTimeout(killTimer);
    spec.signal?.removeEventListener('abort', onAbort);
  }
}

function signalGroup(pid: number | undefined, signal: NodeJS.Signals): void {
  if (pid === undefined) return;
  try {
    process.kill(-pid, signal);
  } catch {
    // The group is already gone.
  }
}

/** The last `lines` lines of a text (for guidance and summaries). */
export function lastLines(text: string, lines: number): string {
  const all = text.replace(/\s+$/, '').split('\n');
  return all.slice(-lines).join('\n');
}
