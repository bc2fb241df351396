/**
 * A workspace's installed dependencies: the folders a package manager fills (`node_modules`, a
 * virtualenv, …) that git ignores, so that they are neither part of an agent's change nor of a
 * tree rebuilt from git's view of the workspace. Finding them, and stamping them: a stat walk
 * whose digest changes when any entry under them is added, removed, renamed or written (its
 * ctime moves on every write and cannot be set by a process, unlike its mtime). The gate shows
 * the ones present at a step's base read-only and refuses to judge with ones that changed; a
 * worktree can be given a checkout's the same way.
 */
import { createHash } from 'node:crypto';
import { lstatSync, readdirSync } from 'node:fs';
import { basename, join } from 'node:path';
import { setImmediate as yieldToLoop } from 'node:timers/promises';
import type { GitRepo } from '../../execution/index.js';

/** Names of folders a package manager installs into (any depth: a monorepo has one per package). */
export const DEPENDENCY_FOLDER_NAMES: ReadonlySet<string> = new Set([
  'node_modules',
  'bower_components',
  'jspm_packages',
  '.venv',
  'venv',
  '__pypackages__',
  '.tox',
  '.nox',
  'elm-stuff',
]);

/** Folders searched for dependency folders outside git, below the root. */
const MAX_SEARCH_DEPTH = 4;

/** A walk yields to the event loop after this many entries, so a big tree never stalls a run. */
const ENTRIES_PER_SLICE = 1000;

/** One dependency folder's stamp. */
export interface FolderStamp {
  /** Relative to the workspace root, `/`-separated. */
  path: string;
  /** sha256 of every entry's relative path, type, inode, size, mode and ctime. */
  digest: string;
  entries: number;
}

/**
 * Whether a folder is one a package manager made: a known name, or a virtualenv by its marker
 * (`pyvenv.cfg`), whatever it is called.
 */
export function isDependencyFolder(dir: string): boolean {
  if (DEPENDENCY_FOLDER_NAMES.has(basename(dir))) return true;
  return lstatSync(join(dir, 'pyvenv.cfg'), { throwIfNoEntry: false })?.isFile() === true;
}

/**
 * The dependency folders of a work tree, relative to its root and sorted. In git: the ignored
 * folders git reports (outermost only) that are dependency folders. Outside git, where nothing
 * says what is ignored, folders found by name or marker down to a few levels (never inside one
 * already found, nor in `.git`).
 */
export async function findDependencyFolders(
  root: string,
  git?: { repo: GitRepo; env?: Record<string, string> },
  /** Absolute folders never searched outside git (NEO_HOME inside the project). */
  skip: readonly string[] = [],
): Promise<string[]> {
  if (git !== undefined) {
    const listed = await git.repo.output(
      ['ls-files', '-z', '--others', '--ignored', '--exclude-standard', '--directory', '--no-empty-directory'],
      { env: git.env ?? {} },
    );
    return listed
      .split('\0')
      .filter((entry) => entry.endsWith('/'))
      .map((entry) => entry.slice(0, -1))
      .filter((path) => isDependencyFolder(join(root, path)))
      .sort();
  }
  const found: string[] = [];
  const visit = (dir: string, rel: string, depth: number): void => {
    let entries;
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const entry of entries) {
      if (!entry.isDirectory() || entry.name === '.git' || skip.includes(join(dir, entry.name))) continue;
      const path = rel === '' ? entry.name : `${rel}/${entry.name}`;
      if (isDependencyFolder(join(dir, entry.name))) found.push(path);
      else if (depth < MAX_SEARCH_DEPTH) visit(join(dir, entry.name), path, depth + 1);
    }
  };
  visit(root, '', 1);
  return found.sort();
}

/**
 * Stamps each folder (relative to `root`): a stat walk that never follows a link. A folder that
 * is gone stamps as `missing`, so its removal is a change too.
 */
export async function stampFolders(root: string, folders: readonly string[]): Promise<FolderStamp[]> {
  const out: FolderStamp[] = [];
  for (const path of folders) out.push(await stampFolder(root, path));
  return out;
}

/** The folders whose stamp differs between `base` and `now` (same folders, same order). */
export function changedFolders(base: readonly FolderStamp[], now: readonly FolderStamp[]): string[] {
  return base.filter((stamp, i) => now[i]?.path !== stamp.path || now[i]?.digest !== stamp.digest).map((s) => s.path);
}

async function stampFolder(root: string, path: string): Promise<FolderStamp> {
  const hash = createHash('sha256');
  let entries = 0;
  let slice = 0;
  // Synchronous stats in slices: several times faster than one promise per entry, and the
  // loop still turns between slices.
  const stack: Array<{ dir: string; rel: string }> = [];
  const top = lstatSync(join(root, path), { throwIfNoEntry: false });
  if (top === undefined || !top.isDirectory()) return { path, digest: 'missing', entries: 0 };
  // The folder itself by kind and identity: its ctime moves when a cache entry appears in it,
  // and every entry that counts is stamped below.
  hash.update(line('.', { ino: top.ino, mode: top.mode, size: 0, ctimeMs: 0 }));
  stack.push({ dir: join(root, path), rel: '' });
  while (stack.length > 0) {
    const { dir, rel } = stack.pop()!;
    let names: string[];
    try {
      names = readdirSync(dir).sort();
    } catch {
      hash.update(`${rel}\0unreadable\n`);
      continue;
    }
    for (const name of names) {
      if (rel === '' && CACHE_ENTRIES.has(name)) continue;
      const full = join(dir, name);
      const info = lstatSync(full, { throwIfNoEntry: false });
      const relPath = `${rel}${name}`;
      if (info === undefined) {
        hash.update(`${relPath}\0gone\n`);
        continue;
      }
      hash.update(line(relPath, info));
      entries++;
      if (info.isDirectory()) stack.push({ dir: full, rel: `${relPath}/` });
      if (++slice >= ENTRIES_PER_SLICE) {
        slice = 0;
        await yieldToLoop();
      }
    }
  }
  return { path, digest: hash.digest('hex'), entries };
}

/**
 * Entries at the top of a dependency folder that are caches, not dependencies: tools (vite,
 * vitest, babel, eslint) write them while the user works in the checkout. They are never lent
 * and never stamped, so the user's own test run beside a neo run is not an agent's escape.
 */
export const CACHE_ENTRIES: ReadonlySet<string> = new Set(['.cache', '.vite', '.vite-temp', '.vitest']);

function line(path: string, info: { ino: number; size: number; mode: number; ctimeMs: number }): string {
  return `${path}\0${info.mode}\0${info.ino}\0${info.size}\0${info.ctimeMs}\n`;
}
