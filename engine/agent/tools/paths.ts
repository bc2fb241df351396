/**
 * Paths as the tools take them: relative to the session's working directory, or absolute — and
 * always inside it. Every file tool resolves its path as the kernel would (symlinks followed,
 * engine/execution confinePath) and refuses one that leads outside, whatever the posture: an
 * absolute path into another folder, `../x`, a symlink out or a dangling symlink.
 */
import { isAbsolute, relative, sep } from 'node:path';
import { confinePath, movedProtected, readOnlyBindHolding } from '../../execution/index.js';
import type { CommandSandbox } from './shell-env.js';
import { ToolInputError } from '../tool.js';

/**
 * The path a tool acts on (its folder's real path and its own name), or a ToolInputError that
 * names the path and why it is refused. `cwd` is the working directory's real path.
 */
export async function confinedPath(cwd: string, path: string): Promise<string> {
  if (path.includes('\0')) throw new ToolInputError('path contains a NUL byte');
  const confined = await confinePath(cwd, path, { refuseGit: false });
  if ('problem' in confined)
    throw new ToolInputError(`refused: ${confined.problem.reason}; neo's tools work inside the working directory only`);
  return confined.entry;
}

/**
 * The path a write or an edit acts on: {@link confinedPath}, and not what the session's sandbox
 * shows read-only (an `inplace` run's project layer, neo's own install): these tools write from
 * neo's process, where no mount holds them to it.
 */
export async function writablePath(cwd: string, path: string, sandbox: CommandSandbox | undefined): Promise<string> {
  const confined = await confinedPath(cwd, path);
  const bind = readOnlyBindHolding(sandbox, confined);
  if (bind !== undefined) throw new ToolInputError(`refused: ${path} is read-only or hidden in its sandbox (${bind})`);
  const moved = movedProtected(sandbox, cwd, confined);
  if (moved !== undefined)
    throw new ToolInputError(
      `refused: ${path} lies in ${moved}, moved there by a rename; it is read-only or hidden in its sandbox`,
    );
  return confined;
}

/** A path shown to the model: relative when it is inside the working directory. */
export function displayPath(cwd: string, absolute: string): string {
  const rel = relative(cwd, absolute);
  return rel !== '' && !rel.startsWith('..') && !isAbsolute(rel) ? rel.split(sep).join('/') : absolute;
}
