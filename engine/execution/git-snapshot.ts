/**
 * A work tree's content at one moment as a git tree object, and the net change between two such
 * moments. The snapshot is `git add -A` into a throwaway index (seeded from the real one, so only
 * files whose stat changed are hashed) and `write-tree`; its objects go to a folder neo owns
 * (`<store>/objects`, borrowing the repository's objects as an alternate), so the user's
 * repository is never written. Comparing two trees sees what a working-tree diff cannot: a file
 * already dirty or untracked at the start, a plain `mv` of an untracked file (a rename), and a
 * change the agent undid (no change at all).
 */
import { randomBytes } from 'node:crypto';
import { copyFile, rm, stat, utimes } from 'node:fs/promises';
import { basename, dirname, join, relative } from 'node:path';
import { NeoError } from '../util/errors.js';
import { gitFailure, type GitRun } from './git.js';
import { parseNameStatusZ, parseNumstatZ } from './git-parse.js';
import type { GitRepo } from './git-repo.js';
import { realFolderSync } from '../util/no-follow.js';

/** One changed file between two snapshots. */
export interface ChangedFile {
  path: string;
  status: 'A' | 'M' | 'D' | 'R';
  oldPath?: string;
  insertions?: number;
  deletions?: number;
}

/** The net change between two snapshots. */
export interface TreeDiff {
  files: ChangedFile[];
  /** The binary-safe patch (`git apply` takes it), at most `maxPatchBytes`. */
  patch: string;
  /** The whole patch's length, kept or not. */
  patchBytes: number;
  truncated: boolean;
}

/** Snapshots of one work tree: a folder neo owns for their objects, and paths they leave out. */
export interface SnapshotStore {
  dir: string;
  /** Absolute paths inside the work tree that are never part of a snapshot (neo's own home). */
  exclude?: readonly string[];
}

/**
 * Writes the work tree's current content as a tree; returns its hash. With `within`, only that
 * folder is read from the work tree (the rest is the index's). Throws GIT_SNAPSHOT_FAILED.
 */
export async function snapshotTree(repo: GitRepo, store: SnapshotStore, within?: string): Promise<string> {
  const { top, gitDir } = repo.location;
  // git writes the objects there: the folder is made (or found) real, never through a link.
  realFolderSync(dirname(store.dir), basename(store.dir), 'objects');
  const index = join(store.dir, `index-${process.pid}-${randomBytes(4).toString('hex')}`);
  try {
    await seedIndex(join(gitDir, 'index'), index);
    const env = { ...snapshotEnv(repo, store), GIT_INDEX_FILE: index };
    // A split index would write its shared part into the repository's git dir.
    const overrides = [['core.splitIndex', 'false']] as const;
    const excluded = (store.exclude ?? [])
      .map((path) => relative(top, path))
      .filter((rel) => rel !== '' && !rel.startsWith('..'))
      .map((rel) => `:(exclude,literal)${rel}`);
    const scope = within === undefined ? '.' : `:(literal)${relative(top, within) || '.'}`;
    const add = ['add', '-A', '--', scope, ...excluded];
    must(add, await repo.run(add, { env, overrides }));
    const tree = await repo.run(['write-tree'], { env, overrides });
    must(['write-tree'], tree);
    return tree.stdout.trim();
  } finally {
    await rm(index, { force: true });
    await rm(`${index}.lock`, { force: true });
  }
}

/**
 * Copies the repository's index, keeping its mtime: git trusts an entry's stat only when the
 * entry is older than the index file (a file rewritten in the same second with the same size
 * is "racily clean" and re-read), so a copy stamped now would hide such an edit.
 */
async function seedIndex(from: string, to: string): Promise<void> {
  try {
    const info = await stat(from);
    await copyFile(from, to);
    await utimes(to, info.atime, info.mtime);
  } catch {
    // No index yet (a repository without commits): `add -A` builds one.
  }
}

/** What changed from tree `from` to tree `to`, with renames (untracked ones too). */
export async function diffTrees(
  repo: GitRepo,
  store: SnapshotStore,
  from: string,
  to: string,
  maxPatchBytes: number,
): Promise<TreeDiff> {
  // A tree's hash is its content: the same hash is no change, with no git to ask (a turn or a
  // step that changed nothing is the common case around an agent that only answers).
  if (from === to) return { files: [], patch: '', patchBytes: 0, truncated: false };
  const env = snapshotEnv(repo, store);
  const range = ['-r', '-M', from, to];
  const [numstat, nameStatus, patch] = await Promise.all([
    repo.run(['diff-tree', '-z', '--numstat', ...range], { env }),
    repo.run(['diff-tree', '-z', '--name-status', ...range], { env }),
    repo.run(['diff-tree', '-p', '--binary', ...range], { env, keepBytes: maxPatchBytes }),
  ]);
  must(['diff-tree', '--numstat'], numstat);
  must(['diff-tree', '--name-status'], nameStatus);
  must(['diff-tree', '-p'], patch);
  const counts = new Map(parseNumstatZ(numstat.stdout).map((entry) => [entry.path, entry]));
  const files = parseNameStatusZ(nameStatus.stdout).map((entry) => {
    const file: ChangedFile = { path: entry.path, status: entry.status };
    if (entry.oldPath !== undefined) file.oldPath = entry.oldPath;
    const count = counts.get(entry.path);
    if (count?.insertions !== undefined) file.insertions = count.insertions;
    if (count?.deletions !== undefined) file.deletions = count.deletions;
    return file;
  });
  files.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  return { files, patch: patch.stdout, patchBytes: patch.bytes, truncated: patch.truncated };
}

/** The paths that differ between two trees (no counts, no patch). */
export async function changedPaths(repo: GitRepo, store: SnapshotStore, from: string, to: string): Promise<string[]> {
  if (from === to) return [];
  const run = await repo.run(['diff-tree', '-r', '-z', '--name-only', from, to], { env: snapshotEnv(repo, store) });
  must(['diff-tree', '--name-only'], run);
  return run.stdout.split('\0').filter((path) => path !== '');
}

/** Objects written to the store, read from it and from the repository. */
function snapshotEnv(repo: GitRepo, store: SnapshotStore): Record<string, string> {
  return {
    GIT_OBJECT_DIRECTORY: join(store.dir, 'objects'),
    GIT_ALTERNATE_OBJECT_DIRECTORIES: join(repo.location.commonDir, 'objects'),
  };
}

function must(args: readonly string[], run: GitRun): void {
  if (!run.ok) throw new NeoError('GIT_SNAPSHOT_FAILED', gitFailure(args, run));
}
