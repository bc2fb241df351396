/**
 * The bubblewrap adapter: the host read-only, a private /tmp, /dev and /proc of its own, the
 * spec's hidden trees as empty private folders, its binds on top, every namespace unshared (the
 * network too unless asked), and the tree killed with the sandbox (`--die-with-parent`, its own
 * PID namespace: when the sandbox's init dies the kernel kills everything left in it).
 */
import { existsSync } from 'node:fs';
import { sep } from 'node:path';
import type { ProcessResult } from './spawn.js';
import type { SandboxSpec } from './sandbox-spec.js';

/** The program, found on PATH. */
export const BWRAP = 'bwrap';

/** The argv that runs `argv` in bwrap as `spec` says. */
export function bwrapArgv(argv: readonly string[], spec: SandboxSpec): string[] {
  const out = [BWRAP, '--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc', '--tmpfs', '/tmp'];
  const hidden: string[] = ['/tmp'];
  for (const path of [...new Set(spec.hide)].sort(byDepth)) {
    // A tree already hidden needs no second mount, and a path that does not exist cannot be a
    // mount point on the read-only host (nothing there to hide either).
    if (hidden.some((h) => within(h, path)) || !existsSync(path)) continue;
    hidden.push(path);
    out.push('--tmpfs', path);
  }
  // Parents before children, so a bind inside another bind (or inside a hidden tree) shows.
  const binds = [...spec.binds].sort((a, b) => byDepth(a.at ?? a.path, b.at ?? b.path));
  for (const bind of binds)
    out.push(`${bind.write ? '--bind' : '--ro-bind'}${bind.optional ? '-try' : ''}`, bind.path, bind.at ?? bind.path);
  // The host's TMPDIR may lie in a hidden tree; inside, /tmp is private and writable.
  out.push('--setenv', 'TMPDIR', '/tmp', '--unshare-all');
  if (spec.network) out.push('--share-net');
  // A new session: the confined tree cannot push input into the caller's terminal (TIOCSTI).
  out.push('--die-with-parent', '--new-session', '--chdir', spec.cwd, '--', ...argv);
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
