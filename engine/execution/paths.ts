/**
 * The one place a path an agent names is turned into where it really leads: each existing
 * component followed the way the kernel follows it (symlinks resolved, `..` applied to the real
 * location), the part that does not exist yet joined as written. A dangling symlink is refused —
 * a write through it would create its target wherever it points. The posture module then decides
 * on the result (engine/posture: containment.ts); this file only reads the file system.
 */
import { lstat, realpath } from 'node:fs/promises';
import { basename, dirname, isAbsolute, join, resolve } from 'node:path';
import { outsideRoot, writeProblem, type ContainmentProblem, type ResolvedPath } from '../posture/index.js';

/** Where `path` (absolute, or relative to `base`) really leads. Never throws. */
export async function resolveRealPath(base: string, path: string): Promise<ResolvedPath> {
  if (path.includes('\0')) return { given: path, problem: 'it contains a NUL byte' };
  const full = isAbsolute(path) ? path : `${resolve(base)}/${path}`;
  // An existing path: realpath(3) follows it exactly as the kernel does, in one call.
  const whole = await realpath(full).catch(() => undefined);
  if (whole !== undefined) return { given: path, real: whole };
  const parts = full.split('/');
  let current = '/';
  let existing = true;
  for (const part of parts) {
    if (part === '' || part === '.') continue;
    if (part === '..') {
      current = resolve(current, '..');
      continue;
    }
    const next = join(current, part);
    if (!existing) {
      current = next;
      continue;
    }
    const info = await lstat(next).catch(() => undefined);
    if (info === undefined) {
      existing = false;
      current = next;
    } else if (info.isSymbolicLink()) {
      const target = await realpath(next).catch(() => undefined);
      if (target === undefined) return { given: path, problem: `${next} is a symlink to nothing (a dangling link)` };
      current = target;
    } else current = next;
  }
  return { given: path, real: current };
}

/** The real path of a session's folder (itself when it does not exist). */
export async function realRoot(root: string): Promise<string> {
  return realpath(root).catch(() => resolve(root));
}

/** Every path of an ask resolved against the session's folder, and that folder's real path. */
export async function resolvePaths(
  root: string,
  paths: readonly string[],
): Promise<{ root: string; resolved: ResolvedPath[] }> {
  const [real, resolved] = await Promise.all([realRoot(root), Promise.all(paths.map((p) => resolveRealPath(root, p)))]);
  return { root: real, resolved };
}

/**
 * The real path of `path` when it stays inside `root` (and, with `refuseGit`, outside `.git` and
 * the agent CLI's own configuration, `agentConfig`), or
 * the problem that keeps it out. `entry` is the entry itself — its folder's real path joined with
 * its last name, a final symlink not followed — for a delete or a rename, which act on the link.
 * For code that acts on paths itself (the script backend, neo's own tools, ACP's fs methods),
 * after the posture gate allowed the call.
 */
export async function confinePath(
  root: string,
  path: string,
  options: { refuseGit: boolean; agentConfig?: readonly string[] },
): Promise<{ path: string; entry: string } | { problem: ContainmentProblem }> {
  const { root: real, resolved } = await resolvePaths(root, [path]);
  const problem = options.refuseGit ? writeProblem(real, resolved, options.agentConfig) : outsideRoot(real, resolved);
  if (problem !== undefined) return { problem };
  const target = resolved[0]!.real!;
  const last = basename(path);
  if (last === '' || last === '.' || last === '..' || path.endsWith('/')) return { path: target, entry: target };
  const folder = await resolveRealPath(root, dirname(path));
  return { path: target, entry: folder.real === undefined ? target : join(folder.real, last) };
}
