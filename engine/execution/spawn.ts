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
import { boundProcess, type ProcessBound } from './process-bound.js';
import { killTree, signalGroup } from './process-group.js';
import { leaderExited, nextTag, trackGroup } from './registry/index.js';
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
  /**
   * Run it inside a process bound of this many processes (`process-bound.ts`): a fork the cap
   * refuses kills the tree (`processLimited`), and what is left in the bound when the leader
   * exits is killed with it, wherever it went (a setsid daemon, a cleared environment).
   */
  maxProcesses?: number;
  /** What it is, for the journal and messages (default: the program's name). Never secrets. */
  label?: string;
  /** Descriptors neo inherited reach it as /dev/null (a confined process: see inherited-fds.ts). */
  shutInherited?: boolean;
  /**
   * Bytes the child reads from one more descriptor, {@link feedDescriptor}, to its end (bwrap's
   * `--seccomp FD`): written and closed right after the spawn.
   */
  feed?: Buffer;
}

/** The descriptor number `feed` arrives on: the first after stdio and the shut inherited ones. */
export function feedDescriptor(shutInherited: boolean): number {
  return 3 + (shutInherited ? shutInheritedStdio().length : 0);
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
  /** Its process bound refused a fork (`maxProcesses`): killed, or ended having been refused. */
  processLimited: boolean;
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
  /**
   * Asks its process bound now whether the cap refused a fork (a cgroup's count; the poll asks
   * every BOUND_POLL_MS), and when it did, kills it for that as the poll would: a caller that
   * acts on what the process says (a CLI's turn ended) asks first, so a flood within the poll's
   * interval is never taken for a finished turn.
   */
  boundHit(): boolean;
}

const TAIL_CHARS = 64 * 1024;
const GRACE_MS = 2_000;
/** How often a cgroup bound is asked whether its cap refused a fork. */
const BOUND_POLL_MS = 100;

/**
 * Starts `argv` (the final argv: a sandbox wrapper, when there is one, has already wrapped it).
 * Never throws for a program that cannot start: the result says `spawnError`.
 */
export function spawnProcess(argv: readonly string[], { env, ...options }: SpawnOptions): RunningProcess {
  // `env` apart: the closures below keep `options` for the child's life, and the environment
  // (a copy of neo's, per command) is the child's once it is spawned; kept, each step's copy
  // outlived a scavenge or two and was promoted (docs/architecture.md, "Validate and peak memory").
  const started = Date.now();
  const program = argv[0];
  if (program === undefined) throw new Error('spawnProcess needs a program');
  let bound: ProcessBound | undefined;
  try {
    bound = options.maxProcesses === undefined ? undefined : boundProcess(options.maxProcesses);
  } catch (error) {
    return notStarted(`its process bound could not be set up: ${(error as Error).message}`, started);
  }
  const [file = program, ...args] = bound?.wrap(argv) ?? argv;
  const output = options.output ?? 'tail';
  const tag = nextTag();
  const inherited = env[TAG_VARIABLE];
  const child = spawnChild(file, args, {
    cwd: options.cwd,
    // Descendants inherit the tag; a neo among them appends its own, so every word stays findable.
    env: { ...env, [TAG_VARIABLE]: inherited ? `${inherited} ${tag}` : tag },
    stdio: [
      options.stdin ?? 'ignore',
      output === 'tail' || output === 'stream' ? 'pipe' : output,
      output === 'tail' || output === 'stream' ? 'pipe' : output,
      ...(options.shutInherited === true ? shutInheritedStdio() : []),
      ...(options.feed === undefined ? [] : ['pipe' as const]),
    ],
    detached: true,
  });
  if (options.feed !== undefined) {
    const feed = child.stdio[feedDescriptor(options.shutInherited === true)] as Writable | null;
    // A child that died before reading is reported by its exit, not by this pipe.
    feed?.on('error', () => undefined);
    feed?.end(options.feed);
  }
  const pid = child.pid;
  const grace = options.graceMs ?? GRACE_MS;
  if (pid !== undefined) {
    trackGroup({
      pgid: pid,
      ...optional('start', readStat(pid)?.start),
      tag,
      label: options.label ?? basename(program),
      at: new Date(started).toISOString(),
    });
  }

  const tailChars = options.tailChars ?? TAIL_CHARS;
  const tails =
    output === 'tail'
      ? { out: new TailBuffer(tailChars), err: new TailBuffer(tailChars), all: new TailBuffer(tailChars) }
      : undefined;
  let reason: 'timeout' | 'idle' | 'abort' | 'kill' | 'processLimit' | undefined;
  let spawnError: string | undefined;
  let killing: Promise<void> | undefined;
  const killAll = (why: NonNullable<typeof reason>, graceMs = grace): Promise<void> => {
    reason ??= why;
    if (pid === undefined) return Promise.resolve();
    // A flood is stopped from growing before the tree is signalled.
    if (why === 'processLimit') bound?.freeze();
    killing ??=
      bound?.kind === 'cgroup'
        ? endBounded(bound, graceMs)
        : killTree({ pgid: pid, tag }, graceMs).then(() => bound?.release(graceMs));
    return killing;
  };
  /**
   * A cgroup lists everything the command started, wherever it went (another group, a new
   * session): its release ends them without the two scans of every process on the machine
   * kill-tree makes. The group is signalled too while its leader lives: a wrapper shell that has
   * not joined the cgroup yet is in no list but its group's.
   */
  let leaderGone = false;
  const endBounded = (cgroup: ProcessBound, graceMs: number): Promise<void> => {
    if (!leaderGone && pid !== undefined) signalGroup(pid, 'SIGTERM');
    return cgroup.release(graceMs);
  };
  // Only a cgroup tells that its cap refused a fork; it is asked while the process runs.
  const watchBound =
    bound?.kind === 'cgroup'
      ? setInterval(() => {
          if (bound.hit()) void killAll('processLimit');
        }, BOUND_POLL_MS).unref()
      : undefined;
  let cleanup: Promise<void> = Promise.resolve();

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
      leaderGone = true;
      if (pid !== undefined) {
        // Leftovers are cleaned up, not a cause: the result still says how the leader ended.
        // A bound's are always: nothing it held outlives the result.
        const leftovers = Math.min(grace, 1_000);
        // A cgroup lists all that is left, wherever it went: no scan of every process is needed.
        if (bound?.kind === 'cgroup')
          cleanup = bound.release(leftovers, reason === undefined).then(() => leaderExited(pid));
        else if (options.killLeftovers || bound !== undefined)
          cleanup = killTree({ pgid: pid, tag }, leftovers)
            .then(() => bound?.release(leftovers))
            .then(() => leaderExited(pid));
        else leaderExited(pid);
      }
      resolve();
    });
    child.once('error', () => resolve());
  });
  const result = new Promise<ProcessResult>((resolve) => {
    const finish = async (code: number | null, signal: NodeJS.Signals | null) => {
      clearTimeout(timeout);
      clearTimeout(idleTimer);
      clearInterval(watchBound);
      options.signal?.removeEventListener('abort', onAbort);
      await cleanup;
      await killing;
      const exitCode = code ?? undefined;
      const processLimited = reason === 'processLimit' || (bound?.hit() ?? false);
      resolve({
        exitCode,
        signal: signal ?? undefined,
        failed: spawnError !== undefined || exitCode !== 0 || reason !== undefined || processLimited,
        timedOut: reason === 'timeout',
        idleTimedOut: reason === 'idle',
        isCanceled: reason === 'abort',
        processLimited,
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
      // A process that never started has no 'close' to wait for (nor anything in its bound).
      if (pid === undefined) void Promise.resolve(bound?.release(0)).then(() => finish(null, null));
    });
    child.once('close', (code, signal) => void finish(code, signal));
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
    boundHit() {
      if (bound?.kind !== 'cgroup' || !bound.hit()) return false;
      void killAll('processLimit');
      return true;
    },
  };
}

/** A process that could not even be attempted: its result, at once. */
export function notStarted(why: string, started = Date.now()): RunningProcess {
  const result: ProcessResult = {
    exitCode: undefined,
    signal: undefined,
    failed: true,
    timedOut: false,
    idleTimedOut: false,
    isCanceled: false,
    processLimited: false,
    isTerminated: false,
    spawnError: why,
    stdout: '',
    stderr: '',
    all: '',
    durationMs: Date.now() - started,
  };
  return {
    pid: undefined,
    stdin: null,
    stdout: null,
    stderr: null,
    exited: Promise.resolve(),
    result: Promise.resolve(result),
    kill: () => Promise.resolve(),
    boundHit: () => false,
  };
}

function optional<K extends string, V>(key: K, value: V | undefined): { [P in K]?: V } {
  return (value === undefined ? {} : { [key]: value }) as { [P in K]?: V };
}
