/**
 * The process bound: how many processes (threads count) a command neo runs may have at once, so
 * a fork flood stops at a cap instead of taking the machine's pids, and neo can tell that it did.
 *
 * The bound is a pids cgroup of its own per command (cgroup v1's pids hierarchy, or a v2 tree
 * whose subtree delegates `pids`): the command joins it before it can fork (its shell writes its
 * own pid into `cgroup.procs` first: {@link joinFirst}), `pids.events` counts refused forks, and
 * what is left in it when the command ends is killed and the cgroup removed — or, when the command
 * left it empty and clean, kept for this process's next command (`cgroup-spares.ts`). A sandboxed command
 * cannot leave it: the cgroup filesystem is read-only inside bwrap. Where no cgroup is writable
 * and neo does not run as root, RLIMIT_NPROC (prlimit) bounds the user's processes instead: it
 * holds, but cannot say that it was reached, and the kernel never applies it to root (nor inside
 * bwrap run by root). Where neither works there is no bound, and `neo doctor` and `--dry-run`
 * say so.
 */
import { mkdirSync, readdirSync, readFileSync, readlinkSync, rmdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { findOwnProgram } from '../util/own-programs.js';
import { keepSpare, takeSpare } from './cgroup-spares.js';
import { isSameProcess, selfIdentity } from './identity.js';

export type ProcessBoundKind = 'cgroup' | 'prlimit' | 'none';

/** Which bound this machine gives a command, and in words why. */
export interface ProcessBoundInfo {
  kind: ProcessBoundKind;
  detail: string;
}

/** One command's bound. */
export interface ProcessBound {
  readonly kind: ProcessBoundKind;
  /** `argv` run inside the bound. */
  wrap(argv: readonly string[]): string[];
  /** Whether the cap refused a fork (only a cgroup can tell; stays true once seen). */
  hit(): boolean;
  /** Refuses every further fork at once (a flood that hit the cap is being ended). */
  freeze(): void;
  /**
   * Ends what is left in it (SIGTERM, `graceMs`, SIGKILL) and removes it. Idempotent. `reusable`:
   * the command ended by itself (no kill), so an empty, clean cgroup may be kept for the next one —
   * never after a kill, whose wrapper shell may not have joined yet and could join a kept one.
   */
  release(graceMs: number, reusable?: boolean): Promise<void>;
}

const PREFIX = 'neo-';
/**
 * This process's PID namespace, in every cgroup name it makes: a pid means nothing in another
 * namespace, so only cgroups named in this one are ever judged stale here.
 */
let pidNamespace: string | undefined;
function ownPidNamespace(): string {
  if (pidNamespace !== undefined) return pidNamespace;
  try {
    pidNamespace = /\[(\d+)\]/.exec(readlinkSync('/proc/self/ns/pid'))?.[1] ?? '0';
  } catch {
    pidNamespace = '0';
  }
  return pidNamespace;
}
let probed: { info: ProcessBoundInfo; dir?: string } | undefined;
let counter = 0;

/** The bound this machine applies (probed once per process: a real cgroup made and removed). */
export function probeProcessBound(): ProcessBoundInfo {
  return probe().info;
}

/**
 * A bound of `max` processes for one command. Throws when the cgroup the probe found cannot be
 * made now: a command is never run unbounded where neo said it would be bounded.
 */
export function boundProcess(max: number): ProcessBound {
  const { info, dir } = probe();
  if (info.kind === 'cgroup' && dir !== undefined) return cgroupBound(dir, max);
  if (info.kind === 'prlimit') return prlimitBound(max);
  return UNBOUNDED;
}

function probe(): { info: ProcessBoundInfo; dir?: string } {
  if (probed !== undefined) return probed;
  const dir = pidsCgroupDir();
  if (dir !== undefined) {
    const problem = tryCgroup(dir);
    if (problem === undefined) {
      sweepStale(dir);
      probed = { info: { kind: 'cgroup', detail: `cgroup pids (${dir})` }, dir };
      return probed;
    }
  }
  const root = process.getuid?.() === 0;
  if (!root && findOwnProgram('prlimit') !== undefined)
    probed = {
      info: {
        kind: 'prlimit',
        detail:
          'RLIMIT_NPROC via prlimit (no writable pids cgroup): holds, but a flood it stops is reported as its timeout',
      },
    };
  else
    probed = {
      info: {
        kind: 'none',
        detail: root
          ? 'none: no writable pids cgroup, and RLIMIT_NPROC does not bind root; only the timeout ends a fork flood'
          : 'none: no writable pids cgroup and no prlimit on PATH; only the timeout ends a fork flood',
      },
    };
  return probed;
}

/**
 * The folder of this process's own pids cgroup, where a child may be made: cgroup v1's pids
 * hierarchy, else the v2 tree when its `cgroup.subtree_control` delegates `pids`.
 */
function pidsCgroupDir(): string | undefined {
  let own: string;
  let mounts: string;
  try {
    own = readFileSync('/proc/self/cgroup', 'utf8');
    mounts = readFileSync('/proc/self/mountinfo', 'utf8');
  } catch {
    return undefined;
  }
  const paths = own.split('\n').map((line) => line.split(':'));
  const v1 = paths.find((parts) => parts[1]?.split(',').includes('pids'))?.[2];
  const v2 = paths.find((parts) => parts[0] === '0' && parts[1] === '')?.[2];
  for (const line of mounts.split('\n')) {
    // id parent dev root mountpoint options … - fstype source superoptions
    const [left, right] = line.split(' - ');
    const fields = left?.split(' ') ?? [];
    const [fstype, , superOptions] = right?.split(' ') ?? [];
    const mountRoot = fields[3];
    const mountPoint = fields[4];
    if (mountRoot === undefined || mountPoint === undefined) continue;
    if (fstype === 'cgroup' && v1 !== undefined && superOptions?.split(',').includes('pids'))
      return within(mountPoint, mountRoot, v1);
    if (fstype === 'cgroup2' && v2 !== undefined) {
      const dir = within(mountPoint, mountRoot, v2);
      if (dir !== undefined && readText(join(dir, 'cgroup.subtree_control'))?.split(/\s+/).includes('pids')) return dir;
    }
  }
  return undefined;
}

/** `path` (a cgroup path as /proc/self/cgroup names it) under a mount showing `root` at `point`. */
function within(point: string, root: string, path: string): string | undefined {
  if (root === '/') return path === '/' ? point : join(point, path);
  if (path === root || path.startsWith(`${root}/`)) return join(point, path.slice(root.length));
  return undefined;
}

/** Why a child cgroup cannot be made and capped in `dir`, or undefined when it can. */
function tryCgroup(dir: string): string | undefined {
  const probeDir = join(dir, `${PREFIX}probe-${process.pid}-${counter++}`);
  try {
    mkdirSync(probeDir);
  } catch (error) {
    return (error as Error).message;
  }
  try {
    writeFileSync(join(probeDir, 'pids.max'), '8');
    return undefined;
  } catch (error) {
    return (error as Error).message;
  } finally {
    removeDir(probeDir);
  }
}

function cgroupBound(dir: string, max: number): ProcessBound {
  const path = takeSpare(max) ?? newCgroup(dir, max);
  let seen = false;
  let frozen = false;
  let releasing: Promise<void> | undefined;
  const hit = () => {
    if (!seen && releasing === undefined) seen = refusedForks(path) > 0;
    return seen;
  };
  return {
    kind: 'cgroup',
    wrap: (argv) => joinFirst(join(path, 'cgroup.procs'), argv),
    hit,
    freeze: () => {
      frozen = true;
      writeQuietly(join(path, 'pids.max'), '0');
    },
    release(graceMs, reusable = false) {
      if (releasing !== undefined) return releasing;
      hit();
      releasing = endMembers(path, graceMs).then((wasEmpty) =>
        reusable && wasEmpty && !seen && !frozen && keepSpare(path) ? undefined : removeWhenEmpty(path),
      );
      return releasing;
    },
  };
}

/** A new cgroup capped at `max`, named so a later neo can tell whose it was. */
function newCgroup(dir: string, max: number): string {
  const self = selfIdentity();
  const path = join(dir, `${PREFIX}${ownPidNamespace()}-${self.pid}-${self.start ?? 0}-${counter++}`);
  mkdirSync(path);
  try {
    writeFileSync(join(path, 'pids.max'), String(max));
  } catch (error) {
    removeDir(path);
    throw error;
  }
  return path;
}

/**
 * `argv` made to join the cgroup (its `procs` file) before it can run anything: a shell writes
 * its own pid there first, so nothing the command starts runs outside the bound, and a cgroup it
 * cannot join is a failure of its own exit status (125), never the command running free. A
 * command that is already a shell script (`/bin/sh -c <script>`: an unconfined `run:` step, gate
 * or loop check) gets the join as its first command, in the same shell on the same line: one
 * exec instead of two, and the script sees the same `$0`, arguments, pid and line numbers.
 * Anything else is exec'd by a wrapper shell (the same pid, so the group and the registry are
 * unchanged).
 */
function joinFirst(procs: string, argv: readonly string[]): string[] {
  const at = shellQuote(procs);
  const enter = `echo $$ > ${at} || { echo "neo: cannot enter the process bound" ${at} >&2; exit 125; }`;
  const [program, flag, script, ...rest] = argv;
  if (program === '/bin/sh' && flag === '-c' && script !== undefined && rest.length === 0)
    return ['/bin/sh', '-c', `${enter}; ${script}`];
  return ['/bin/sh', '-c', `${enter}; exec "$@"`, 'sh', ...argv];
}

/** `text` as one single-quoted shell word. */
function shellQuote(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}

function prlimitBound(max: number): ProcessBound {
  return {
    ...UNBOUNDED,
    kind: 'prlimit',
    // RLIMIT_NPROC counts every process of the user: the cap sits above what already runs.
    wrap: (argv) => [findOwnProgram('prlimit') ?? 'prlimit', `--nproc=${userTasks() + max}`, '--', ...argv],
  };
}

const UNBOUNDED: ProcessBound = {
  kind: 'none',
  wrap: (argv) => [...argv],
  hit: () => false,
  freeze: () => undefined,
  release: () => Promise.resolve(),
};

/**
 * SIGTERM to what is in the cgroup, up to `graceMs`, then no more forks and SIGKILL until it is
 * empty. True when it was empty already (nothing was signalled, its cap never lowered).
 */
async function endMembers(path: string, graceMs: number): Promise<boolean> {
  const procs = join(path, 'cgroup.procs');
  if (members(procs).length === 0) return true;
  signalAll(members(procs), 'SIGTERM');
  const deadline = Date.now() + graceMs;
  while (members(procs).length > 0 && Date.now() < deadline) await pause(20);
  writeQuietly(join(path, 'pids.max'), '0');
  for (let round = 0; round < 100; round++) {
    const left = members(procs);
    if (left.length === 0) return false;
    signalAll(left, 'SIGKILL');
    await pause(20);
  }
  return false;
}

function members(procs: string): number[] {
  return (readText(procs) ?? '')
    .split('\n')
    .filter((line) => line !== '')
    .map(Number);
}

function signalAll(pids: readonly number[], signal: NodeJS.Signals): void {
  for (const pid of pids) {
    if (pid === process.pid) continue;
    try {
      process.kill(pid, signal);
    } catch {
      // gone meanwhile
    }
  }
}

/** How many forks the cap refused (`max N` in pids.events). */
function refusedForks(path: string): number {
  const match = /^max (\d+)$/m.exec(readText(join(path, 'pids.events')) ?? '');
  return match === null ? 0 : Number(match[1]);
}

/**
 * Cgroups a dead neo left (killed before it could remove them): what still runs in them was
 * started by that neo and is ended; the folders go.
 */
function sweepStale(dir: string): void {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return;
  }
  for (const name of names) {
    const match = /^neo-(\d+)-(\d+)-(\d+)-\d+$/.exec(name);
    if (match === null || match[1] !== ownPidNamespace()) continue;
    const owner = { pid: Number(match[2]), ...(match[3] === '0' ? {} : { start: Number(match[3]) }) };
    if (isSameProcess(owner)) continue;
    const path = join(dir, name);
    writeQuietly(join(path, 'pids.max'), '0');
    signalAll(members(join(path, 'cgroup.procs')), 'SIGKILL');
    removeDir(path);
  }
}

/** Threads of processes owned by this user now (what RLIMIT_NPROC counts). */
function userTasks(): number {
  const uid = process.getuid?.();
  let count = 0;
  for (const name of safeReaddir('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      if (statSync(`/proc/${name}`).uid !== uid) continue;
      count += safeReaddir(`/proc/${name}/task`).length || 1;
    } catch {
      // gone meanwhile
    }
  }
  return count;
}

/** rmdir; false while the kernel still counts a task in it. */
function removeDir(path: string): boolean {
  try {
    rmdirSync(path);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ENOENT';
  }
}

/** rmdir, retried for a while: a task killed a moment ago may still be leaving the cgroup. */
async function removeWhenEmpty(path: string): Promise<void> {
  for (let i = 0; i < 40 && !removeDir(path); i++) await pause(25);
}

function readText(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
}

function writeQuietly(path: string, text: string): boolean {
  try {
    writeFileSync(path, text);
    return true;
  } catch {
    return false; // the cgroup is gone already
  }
}

function safeReaddir(path: string): string[] {
  try {
    return readdirSync(path);
  } catch {
    return [];
  }
}

function pause(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
