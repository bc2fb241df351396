/**
 * A workspace lent the checkout's installed dependencies (`workspace.dependencies: reuse`, the
 * default): a worktree or a copy starts with no `node_modules` or virtualenv, so each run would
 * reinstall, or its gate fail (`uvu: not found`). Each of the checkout's package folders and
 * virtualenvs is mirrored in the workspace at its place (mirror-folder.ts): real folders at the
 * top, links to the checkout's packages below, in milliseconds whatever they weigh. The
 * checkout's folders are shown read-only in every sandbox of the run (runConfinement), so no
 * confined process writes them through a link; an install step (`npm ci`) replaces the mirror
 * with the workspace's own install.
 *
 * Lent are the folders `findDependencyFolders` finds in the checkout (the gate's one rule of
 * what a dependency folder is) that a mirror serves: package folders and virtualenvs. A `.tox`
 * or `.nox` is left to its tool, which writes there on every run. A worktree keeps a mirror
 * only where its own ignore rules ignore it (an uncommitted `.gitignore` does not reach it), so
 * a mirror is never part of a step's change or of the run's commit.
 */
import { lstatSync } from 'node:fs';
import { lstat, readFile, realpath, rm, stat } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { isPythonPrefix, type GitRepo } from '../../execution/index.js';
import { errorMessage } from '../../util/errors.js';
import type { WorkspaceRecord } from '../store/run-files.js';
import { findDependencyFolders } from './dependencies.js';
import { mirrorPackages, mirrorVirtualenv, type MirrorPlace } from './mirror-folder.js';

/** What a run does with the checkout's installed dependencies. */
export type DependencyMode = 'reuse' | 'none';

/** One folder lent to a workspace, as its record keeps it: where (relative), the checkout's folder, what else its links need shown. */
export type LentFolder = NonNullable<WorkspaceRecord['dependencies']>[number];

/** Package folders a mirror serves (the others of DEPENDENCY_FOLDER_NAMES are their tools' own). */
const PACKAGE_FOLDERS = new Set(['node_modules', 'bower_components', 'jspm_packages']);

/** How a dependency folder is mirrored, or undefined when it is not lent. */
export function lendKind(dir: string): 'packages' | 'virtualenv' | undefined {
  if (PACKAGE_FOLDERS.has(basename(dir))) return 'packages';
  return isVirtualenv(dir) ? 'virtualenv' : undefined;
}

/**
 * The checkout's folders a workspace of it can be lent, relative to `root`: in git, the
 * dependency folders git ignores there; outside git, found by name (never under `skip`, NEO_HOME).
 */
export async function lendableFolders(
  root: string,
  repo: GitRepo | undefined,
  skip: readonly string[] = [],
): Promise<string[]> {
  const found = await findDependencyFolders(root, repo === undefined ? undefined : { repo }, skip);
  return found.filter((path) => lendKind(join(root, path)) !== undefined);
}

/**
 * Mirrors each of `folders` (relative paths under the checkout's `checkout`) into the workspace
 * at `workspace`, where its parent folder is a real folder and nothing lies at its place yet.
 * A folder that cannot be mirrored is left out, its partial mirror removed, and said in `skipped`.
 */
export async function lendFolders(options: {
  checkout: string;
  workspace: string;
  folders: readonly string[];
  aliases?: readonly string[];
}): Promise<{ lent: LentFolder[]; skipped: string[] }> {
  const checkout = await realpath(options.checkout);
  const lent: LentFolder[] = [];
  const skipped: string[] = [];
  for (const path of options.folders) {
    const to = join(options.workspace, ...path.split('/'));
    if (!(await realFolders(options.workspace, dirname(path))) || (await exists(to))) continue;
    let from: string;
    try {
      from = await realpath(join(checkout, ...path.split('/')));
    } catch {
      continue;
    }
    const place: MirrorPlace = {
      from,
      to,
      checkout,
      workspace: options.workspace,
      ...(options.aliases === undefined ? {} : { aliases: options.aliases }),
    };
    try {
      const kind = lendKind(from);
      if (kind === 'packages') await mirrorPackages(place);
      else if (kind === 'virtualenv') await mirrorVirtualenv(place);
      else continue;
      const shows = kind === 'virtualenv' ? await basePython(from) : undefined;
      lent.push({ path, from, ...(shows === undefined ? {} : { shows: [shows] }) });
    } catch (error) {
      await removeMirror(to);
      skipped.push(`${path} (${errorMessage(error)})`);
    }
  }
  return { lent, skipped };
}

/** Removes a mirror: its links go, never what they lead to. */
export async function removeMirror(at: string): Promise<void> {
  await rm(at, { recursive: true, force: true });
}

/**
 * The install a virtualenv's interpreter comes from (`home = <prefix>/bin` in `pyvenv.cfg`):
 * under the user's home (pyenv, uv) it is hidden in a sandbox unless shown, and the venv's
 * `python` leads there. `pyvenv.cfg` is a file of the checkout, ignored by git, that an earlier
 * `inplace` run's confined step could have written, and what it names is shown to every sandbox
 * of the run: only a `bin` folder holding a Python (`python3` or `python`, a regular file) whose
 * parent is a real Python prefix (its standard library, `lib/pythonX.Y/os.py`) is taken, and that
 * prefix shown — never a folder it names as it is (`home = ~/.ssh`, NEO_HOME), nor a user-level
 * `bin` that merely holds a Python link (`~/.local/bin`: `~/.local` holds keyrings and app tokens).
 */
async function basePython(venv: string): Promise<string | undefined> {
  const text = await readFile(join(venv, 'pyvenv.cfg'), 'utf8').catch(() => '');
  const home = /^\s*home\s*=\s*(.+?)\s*$/m.exec(text)?.[1];
  if (home === undefined || !home.startsWith('/')) return undefined;
  const real = await realpath(home).catch(() => undefined);
  if (real === undefined || basename(real) !== 'bin' || dirname(real) === real) return undefined;
  const prefix = dirname(real);
  for (const name of ['python3', 'python']) {
    const info = await stat(join(real, name)).catch(() => undefined);
    if (info?.isFile() === true) return isPythonPrefix(prefix) ? prefix : undefined;
  }
  return undefined;
}

function isVirtualenv(dir: string): boolean {
  return lstatSync(join(dir, 'pyvenv.cfg'), { throwIfNoEntry: false })?.isFile() === true;
}

/** Whether every component of `rel` under `root` is a real folder (no link is followed). */
async function realFolders(root: string, rel: string): Promise<boolean> {
  let at = root;
  for (const part of rel.split('/').filter((p) => p !== '' && p !== '.')) {
    at = join(at, part);
    const info = await lstat(at).catch(() => undefined);
    if (info === undefined || !info.isDirectory()) return false;
  }
  return true;
}

async function exists(path: string): Promise<boolean> {
  return (await lstat(path).catch(() => undefined)) !== undefined;
}

/**
 * Lends a new worktree the checkout's dependency folders: those of the repository `source`
 * (all of it: a package's tests need the root's `node_modules` too) that the worktree's own
 * ignore rules ignore once mirrored. Returns the record's entries and what to tell the user.
 */
export async function lendToWorktree(options: {
  source: GitRepo;
  worktree: GitRepo;
  home: string;
  /** The checkout's lendable folders when the caller already listed them (`lendableFolders`). */
  folders?: readonly string[];
}): Promise<{ lent: LentFolder[]; warnings: string[] }> {
  const top = options.source.location.top;
  const root = options.worktree.location.top;
  const folders = options.folders ?? (await lendableFolders(top, options.source, [options.home]));
  if (folders.length === 0) return { lent: [], warnings: [] };
  const { lent, skipped } = await lendFolders({ checkout: top, workspace: root, folders });
  const ignored = new Set(await findDependencyFolders(root, { repo: options.worktree }));
  const kept: LentFolder[] = [];
  const warnings = skipped.map((what) => `the checkout's ${what} could not be lent to the worktree`);
  for (const folder of lent) {
    if (ignored.has(folder.path)) {
      kept.push(folder);
      continue;
    }
    await removeMirror(join(root, ...folder.path.split('/')));
    warnings.push(
      `the checkout's ${folder.path} is not lent to the worktree: the worktree's committed ignore rules do not ignore it (commit the .gitignore that does), so install it in a run step`,
    );
  }
  return { lent: kept, warnings };
}
