/**
 * The bubblewrap adapter: the host read-only, a private /tmp, /dev and /proc of its own, the
 * spec's hidden trees as empty private folders, its binds on top, every namespace unshared (the
 * network too unless asked), and the tree killed with the sandbox (`--die-with-parent`, its own
 * PID namespace: when the sandbox's init dies the kernel kills everything left in it).
 */
import { statSync } from 'node:fs';
import { sep } from 'node:path';
import { findOwnProgram } from '../util/own-programs.js';
import type { ProcessResult } from './spawn.js';
import type { SandboxBind, SandboxSpec } from './sandbox-spec.js';

/** The program's name. */
export const BWRAP = 'bwrap';

/**
 * bwrap's absolute path on neo's own programs' PATH (util/own-programs.ts): spawned by name it
 * would be looked up on the step's PATH, where a `bwrap` a confined step planted in the project's
 * `node_modules/.bin` would start the next step unconfined. Not found, the bare name fails to
 * start where it is missing, and the probe (sandbox-probe.ts) refuses a sandbox first. `path`:
 * the PATH of the environment the sandbox is started with (the probe's, a command's), less the
 * trees a confined step writes like any of neo's own lookups; neo's own when not given.
 */
export function bwrapProgram(path?: string): string {
  return findOwnProgram(BWRAP, path) ?? BWRAP;
}

/**
 * The argv that runs `argv` in bwrap as `spec` says; with `seccompFd`, the filter bwrap reads
 * there (seccomp-filter.ts: a networked sandbox creates no unix socket) applies to the command.
 */
export function bwrapArgv(argv: readonly string[], spec: SandboxSpec, seccompFd?: number): string[] {
  const out = [
    bwrapProgram(spec.env.PATH),
    '--ro-bind',
    '/',
    '/',
    '--dev',
    '/dev',
    '--proc',
    '/proc',
    ...mountArgs(spec),
  ];
  // The host's TMPDIR may lie in a hidden tree; inside, /tmp is private and writable.
  out.push('--setenv', 'TMPDIR', '/tmp', '--unshare-all');
  if (spec.network) out.push('--share-net');
  // A new session: the confined tree cannot push input into the caller's terminal (TIOCSTI).
  if (seccompFd !== undefined) out.push('--seccomp', String(seccompFd));
  out.push('--die-with-parent', '--new-session', '--chdir', spec.cwd, '--', ...argv);
  return out;
}

type Mount = { hide: true; at: string } | { hide: false; at: string; bind: SandboxBind };

/**
 * The hidden trees and the binds as one list of mounts, shallowest first: what lies deeper is
 * mounted later, over what holds it. So a bind inside a hidden tree shows (the workspace in the
 * hidden home), and a hidden tree inside a bind is hidden again (NEO_HOME inside a project
 * folder, the home inside an install tree someone bound): what is hidden stays hidden whatever
 * is bound above it. At one path the hide comes first, so a bind asked for by that very path
 * shows.
 */
function mountArgs(spec: SandboxSpec): string[] {
  const mounts: Mount[] = [
    ...[...new Set(['/tmp', ...spec.hide])].map((at): Mount => ({ hide: true, at })),
    ...spec.binds.map((bind): Mount => ({ hide: false, at: bind.at ?? bind.path, bind })),
  ];
  mounts.sort((a, b) => byDepth(a.at, b.at) || Number(a.hide === false) - Number(b.hide === false));
  const done: Mount[] = [];
  const out: string[] = [];
  for (const mount of mounts) {
    if (mount.hide) {
      // The mount that shows this path so far: the deepest one done that holds it.
      const cover = done.findLast((m) => within(m.at, mount.at));
      if (cover?.hide === true) continue; // hidden already
      // A path that does not exist cannot be a mount point on the read-only host (and holds nothing).
      const source = cover === undefined ? mount.at : cover.bind.path + mount.at.slice(cover.at.length);
      if (!isFolder(source)) continue;
      out.push('--tmpfs', mount.at);
    } else {
      const { bind } = mount;
      out.push(`${bind.write ? '--bind' : '--ro-bind'}${bind.optional ? '-try' : ''}`, bind.path, mount.at);
    }
    done.push(mount);
  }
  return out;
}

/** What bwrap itself said when it could not set the process up, or undefined when the command ran. */
export function bwrapSetupFailure(result: ProcessResult): string | undefined {
  if (result.spawnError !== undefined)
    return /ENOENT/.test(result.spawnError)
      ? `the sandbox cannot start: ${BWRAP} (bubblewrap) is not installed`
      : `the sandbox cannot start: ${result.spawnError}`;
  // bwrap exits 1 with `bwrap: <why>` when a mount or a namespace fails, before the command runs.
  if (result.exitCode === 1 && result.stderr.startsWith('bwrap: '))
    return `the sandbox could not set the command up: ${result.stderr.trim().split('\n')[0]}`;
  return undefined;
}

function byDepth(a: string, b: string): number {
  return a.split(sep).length - b.split(sep).length || a.localeCompare(b);
}

function within(parent: string, path: string): boolean {
  return path === parent || path.startsWith(parent.endsWith(sep) ? parent : parent + sep);
}

function isFolder(path: string): boolean {
  return statSync(path, { throwIfNoEntry: false })?.isDirectory() === true;
}
