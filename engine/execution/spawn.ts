/**
 * The one way neo starts a process. Each process leads its own group, is recorded in the live
 * registry (and its journal) before this returns, carries a tag every descendant inherits, and
 * ends in one result shape whose flags say how it ended.
 *
 * It uses node:child_process, not execa: importing execa costs more than `node -e 0` takes to
 * run (figure in docs/architecture.md, Performance notes), and a flow's command step spawns on
 * its critical path. The contract
 * is the same: an argv array — a shell runs only when argv says so (`['/bin/sh', '-c', text]`
 * with the text as one argument, never spliced) — and values only through the environment.
 */
import { spawn as spawnChild } from 'node:child_process';
import { basename } from 'node:path';
import type { Readable, Writable } from 'node:stream';
import { shutInheritedStdio } from './inherited-fds.js';
import { readStat, TAG_VARIABLE } from './proc.js';
import { killTree } from './process-group.js';
import { leaderExited, nextTag, trackGroup } from './registry.js';
import { TailBuffer } from './tail-buffer.js';

export interface SpawnOptions {
  cwd: string;
  /** The child's whole environment: nothing is inherited implicitly. */
  env: NodeJS.ProcessEnv;
  /** Default `ignore`: nothing ever waits on input. */
  stdin?: 'ignore' | 'pipe';
  /**
   * Where stdout and stderr go. `tail` (default): read here into bounded tails (the result's
   * `stdout`, `stderr`, `all`); `stream`: handed to the caller, who must read them; a number: a
   * file descriptor both are written to; `ignore`.
   */
  output?: 'tail' | 'stream' | 'ignore' | number;
  /** How much of each output the result keeps (default 64 K characters, the last part). */
  tailChars?: number;
  /** Every chunk of output as it arrives (`tail` mode). */
  onOutput?: (chunk: string) => void;
  /** Kill-tree after this long: `timedOut`. */
  timeoutMs?: number;
  /** Kill-tree after this long without output (`tail` mode): `idleTimedOut`. */
  idleTimeoutMs?: number;
  /** Kill-tree when it aborts: `isCanceled`. */
  signal?: AbortSignal;
  /** SIGTERM → SIGKILL grace of those kills (default 2 s). */
  graceMs?: number;
  /** Once the leader exits, kill what it left in its group (a `cmd &` holding the pipes open). */
  killLeftovers?: boolean;
  /** What it is, for the journal and messages (default: the program's name). Never secrets. */
  label?: string;
  /** Descriptors neo inherited reach it as /dev/null (a confined process: see inherited-fds.ts). */
  shutInherited?: boolean;
}

/** How a process ended: flags, not strings to match (execa's names where execa has the flag). */
export interface ProcessResult {
  exitCode: number | undefined;
  /** The signal that ended it, if one did. */
  signal: NodeJS.Signals | undefined;
  /** Anything but a clean exit 0: it could not start, exited non-zero, was killed or timed out. */
  failed: boolean;
  timedOut: boolean;
  /** Killed for writing nothing for `idleTimeoutMs`. */
  idleTimedOut: boolean;
  /** Killed because the caller's signal aborted. */
  isCanceled: boolean;
  /** Ended by a signal, whoever sent it. */
  isTerminated: boolean;
  /** It could not start at all (ENOENT, EACCES, a missing cwd). */
  spawnError: string | undefined;
  /** The last part of each output (`tail` mode), and of both interleaved in arrival order. */
  stdout: string;
  stderr: string;
  all: string;
  durationMs: number;
}

export interface RunningProcess {
  /** Also the group id; undefined when it could not start. */
  readonly pid: number | undefined;
  readonly stdin: Writable | null;
  /** Set in `stream` mode. */
  readonly stdout: Readable | null;
  readonly stderr: Readable | null;
  /** Resolves once the leader exited (its output may still be draining). */
  readonly exited: Promise<void>;
  /** Resolves once it exited and its output closed. Never rejects. */
  readonly result: Promise<ProcessResult>;
  /** Kill-tree (SIGTERM, `graceMs`, SIGKILL); resolves when nothing of it runs and the result is in. */
  kill(graceMs?: number): Promise<void>;
}

const TAIL_CHARS = 64 * 1024;
const GRACE_MS = 2_000;

/**
 * Starts `argv` (the final argv: a sandbox wrapper, when there is one, has already wrapped it).
 * Never throws for a program that cannot start: the result says `spawnError`.
 */
export function spawnProcess(argv: readonly string[], options: SpawnOptions): RunningProcess {
  const started = Date.now();
  const [file, ...args] = argv;
  if (file === undefined) throw new Error('spawnProcess needs a program');
  const output = options.output ?? 'tail';
  const tag = nextTag();
  const inherited = options.env[TAG_VARIABLE];
  const child = spawnChild(file, args, {
    cwd: options.cwd,
    // Descendants inherit the tag; a neo among them appends its own, so every word stays findable.
    env: { ...options.env, [TAG_VARIABLE]: inherited ? `${inherited} ${tag}` : tag },
    stdio: [
      options.stdin ?? 'ignore',
      output === 'tail' || output === 'stream' ? 'pipe' : output,
      output === 'tail' || output === 'stream' ? 'pipe' : output,
      ...(options.shutInherited === true ? shutInheritedStdio() : []),
    ],
    detached: true,
  });
  const pid = child.pid;
  const grace = options.graceMs ?? GRACE_MS;
  if (pid !== undefined) {
    trackGroup({
      pgid: pid,
      ...optional('start', readStat(pid)?.start),
      tag,
      label: options.label ?? basename(file),
      at: new Date(started).toISOString(),
    });
  }

  const tailChars = options.tailChars ?? TAIL_CHARS;
  const tails =
    output === 'tail'
      ? { out: new TailBuffer(tailChars), err: new TailBuffer(tailChars), all: new TailBuffer(tailChars) }
      : undefined;
  let reason: 'timeout' | 'idle' | 'abort' | 'kill' | undefined;
  let spawnError: string | undefined;
  let killing: Promise<void> | undefined;
  const killAll = (why: NonNullable<typeof reason>, graceMs = grace): Promise<void> => {
    reason ??= why;
    if (pid === undefined) return Promise.resolve();
    killing ??= killTree({ pgid: pid, tag }, graceMs);
    return killing;
  };

  let idleTimer: NodeJS.Timeout | undefined;
  const armIdle = () => {
    if (options.idleTimeoutMs === undefined) return;
    clearTimeout(idleTimer);
    idleTimer = setTimeout(() => void killAll('idle'), options.idleTimeoutMs);
  };
  if (tails !== undefined) {
    const onData = (target: TailBuffer) => (chunk: Buffer) => {
      const text = chunk.toString('utf8');
      target.push(text);
      tails.all.push(text);
      options.onOutput?.(text);
      armIdle();
    };
    child.stdout?.on('data', onData(tails.out));
    child.stderr?.on('data', onData(tails.err));
  }
  child.stdin?.on('error', () => undefined);
  const timeout =
    options.timeoutMs === undefined ? undefined : setTimeout(() => void killAll('timeout'), options.timeoutMs);
  const onAbort = () => void killAll('abort');

  const exited = new Promise<void>((resolve) => {
    child.once('exit', () => {
      if (pid !== undefined) {
        // Leftovers are cleaned up, not a cause: the result still says how the leader ended.
        if (options.killLeftovers)
          void killTree({ pgid: pid, tag }, Math.min(grace, 1_000)).then(() => leaderExited(pid));
        else leaderExited(pid);
      }
      resolve();
    });
    child.once('error', () => resolve());
  });
  const result = new Promise<ProcessResult>((resolve) => {
    const finish = (code: number | null, signal: NodeJS.Signals | null) => {
      clearTimeout(timeout);
      clearTimeout(idleTimer);
      options.signal?.removeEventListener('abort', onAbort);
      const exitCode = code ?? undefined;
      resolve({
        exitCode,
        signal: signal ?? undefined,
        failed: spawnError !== undefined || exitCode !== 0 || reason !== undefined,
        timedOut: reason === 'timeout',
        idleTimedOut: reason === 'idle',
        isCanceled: reason === 'abort',
        isTerminated: signal !== null,
        spawnError,
        stdout: tails?.out.text() ?? '',
        stderr: tails?.err.text() ?? '',
        all: tails?.all.text() ?? '',
        durationMs: Date.now() - started,
      });
    };
    child.once('error', (error) => {
      spawnError = error.message;
      // A process that never started has no 'close' to wait for.
      if (pid === undefined) finish(null, null);
    });
    child.once('close', finish);
  });
  armIdle();
  if (options.signal?.aborted) onAbort();
  options.signal?.addEventListener('abort', onAbort, { once: true });

  return {
    pid,
    stdin: child.stdin,
    stdout: output === 'stream' ? child.stdout : null,
    stderr: output === 'stream' ? child.stderr : null,
    exited,
    result,
    async kill(graceMs = grace) {
      await killAll('kill', graceMs);
      await result;
    },
  };
}

function optional<K extends string, V>(key: K, value: V | undefined): { [P in K]?: V } {
  return (value === undefined ? {} : { [key]: value }) as { [P in K]?: V };
}
