/**
 * A work tree's content as git sees it — tracked files as they are now, untracked files git
 * does not ignore, never an ignored one — hashed into a store only neo can reach, and written
 * out again as plain files from those very objects. The gate's fresh tree is built this way:
 * content-addressed, so a snapshot's id names exactly what a gate judged, and comparing two ids
 * says whether the workspace changed since. (Three git calls per tree: `add -A` into a private
 * index, `ls-files -s` for the id, `checkout-index` from the same index.)
 *
 * Nothing here trusts a file the agent could write: the stat cache is a private index (seeded
 * from the repository's at the unit's first snapshot), objects go to a private folder, and git
 * runs hardened (engine/execution/git-hardening) with ctime checked, no fsmonitor, no untracked
 * cache and no replace refs, so a file rewritten with its old size and mtime is hashed again.
 * Outside git the same is done with a private git dir over the folder: `.gitignore` files still
 * apply, and the dependency folders are left out by name.
 */
import { createHash, randomBytes } from 'node:crypto';
import { copyFile, rename, rm, stat, utimes } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { gitFailure, runGit, type GitRepo, type GitRun } from '../../execution/index.js';
import { NeoError } from '../../util/errors.js';
import { mkdirPrivate } from '../../util/private-store.js';

/** What every call overrides: the stat check made strict, nothing that answers in git's place. */
const STRICT: ReadonlyArray<readonly [string, string]> = [
  ['core.trustctime', 'true'],
  ['core.checkStat', 'default'],
  ['core.splitIndex', 'false'],
  ['core.untrackedCache', 'false'],
  ['core.symlinks', 'true'],
  ['core.autocrlf', 'false'],
  // Its index and objects are NEO_HOME's: private, as the rest of the store.
  ['core.sharedRepository', '0600'],
];

type Run = (args: readonly string[], env?: Record<string, string>) => Promise<GitRun>;

/** A work tree's content at one moment, as git would commit it. */
export interface Snapshot {
  /** A digest of every entry (path, mode, blob): equal ids, equal content. */
  id: string;
  /** `<mode> <blob>` by path (files and links, `/`-separated). */
  entries: ReadonlyMap<string, string>;
}

/** The paths whose entry differs between two snapshots (added, removed or changed), sorted. */
export function changedPaths(from: Snapshot, to: Snapshot): string[] {
  const out = new Set<string>();
  for (const [path, entry] of to.entries) if (from.entries.get(path) !== entry) out.add(path);
  for (const path of from.entries.keys()) if (!to.entries.has(path)) out.add(path);
  return [...out].sort();
}

/** `git ls-files -s -z` output as a snapshot (entries are `<mode> <blob> <stage>\t<path>`). */
function snapshotOf(listing: string): Snapshot {
  const entries = new Map<string, string>();
  const hash = createHash('sha256');
  for (const record of listing.split('\0')) {
    if (record === '') continue;
    const tab = record.indexOf('\t');
    const [mode, blob] = record.slice(0, tab).split(' ');
    entries.set(record.slice(tab + 1), `${mode} ${blob}`);
    hash.update(`${record}\0`);
  }
  return { id: hash.digest('hex'), entries };
}

export class PrivateSnapshots {
  readonly #run: Run;
  readonly #dir: string;
  readonly #seed: string | undefined;
  readonly #exclude: readonly string[];

  private constructor(run: Run, dir: string, seed: string | undefined, exclude: readonly string[]) {
    this.#run = run;
    this.#dir = dir;
    this.#seed = seed;
    this.#exclude = exclude;
  }

  /**
   * Snapshots of the work tree at `root`, their index and objects in `dir` (private). With
   * `repo`, through that repository (its ignore rules, its objects borrowed); without, through
   * a private git dir. `exclude`: paths relative to `root` never taken (NEO_HOME inside the
   * project, dependency folders outside git).
   */
  static async open(options: {
    root: string;
    dir: string;
    repo: GitRepo | undefined;
    exclude: readonly string[];
  }): Promise<PrivateSnapshots> {
    const { root, dir, repo } = options;
    await mkdirPrivate(join(dir, 'objects'));
    const objects = { GIT_OBJECT_DIRECTORY: join(dir, 'objects'), GIT_NO_REPLACE_OBJECTS: '1' };
    const exclude = options.exclude.filter((path) => path !== '' && !path.startsWith('..'));
    if (repo !== undefined) {
      const env = { ...objects, GIT_ALTERNATE_OBJECT_DIRECTORIES: join(repo.location.commonDir, 'objects') };
      const run: Run = (args, extra) => repo.run(args, { env: { ...env, ...extra }, overrides: STRICT });
      return new PrivateSnapshots(run, dir, join(repo.location.gitDir, 'index'), exclude);
    }
    const gitDir = join(dir, 'git');
    const env = { ...objects, GIT_DIR: gitDir, GIT_WORK_TREE: root };
    const overrides = [...STRICT, ['core.bare', 'false'] as const];
    const run: Run = (args, extra) => runGit(root, args, { env: { ...env, ...extra }, overrides });
    if ((await stat(join(gitDir, 'HEAD')).catch(() => undefined)) === undefined)
      must(['init'], await runGit(dir, ['init', '--quiet', '--bare', '--shared=0600', '--template=', gitDir]));
    return new PrivateSnapshots(run, dir, undefined, exclude);
  }

  /**
   * The work tree's content now: each file's mode and blob id by path (its objects kept in the
   * private store), and with `into`, written out there as plain files (from the same index, so
   * what is written is exactly what was hashed). The stat cache trusts a file whose size, mtime,
   * ctime and inode are unchanged, but git compares times to the second: a rewrite within the
   * second of the last look, its mtime put back, passes for unchanged. `exact` hashes every
   * file instead (no stat trusted): what a verdict that counts is taken on.
   */
  async snapshot(options: { into?: string; exact?: boolean } = {}): Promise<Snapshot> {
    const cache = join(this.#dir, 'index');
    const index = join(this.#dir, `index-${randomBytes(6).toString('hex')}`);
    try {
      // The stat cache keeps its mtime: an entry as new as the index is re-read (racy git).
      const seed = options.exact === true ? undefined : (await exists(cache)) ? cache : this.#seed;
      if (seed !== undefined && (await exists(seed))) await copyKeepingTime(seed, index);
      const env = { GIT_INDEX_FILE: index };
      const excluded = this.#exclude.map((path) => `:(exclude,literal)${path}`);
      const add = ['add', '-A', '--', '.', ...excluded];
      must(add, await this.#run(add, env));
      const list = ['ls-files', '-s', '-z'];
      const listed = await this.#run(list, env);
      must(list, listed);
      if (options.into !== undefined) {
        const into = options.into.endsWith('/') ? options.into : `${options.into}/`;
        const checkout = ['checkout-index', '--all', '--force', `--prefix=${into}`];
        must(checkout, await this.#run(checkout, env));
      }
      await rename(index, cache);
      return snapshotOf(listed.stdout);
    } finally {
      await rm(index, { force: true });
      await rm(`${index}.lock`, { force: true });
    }
  }

  /** A path of `root` relative to it, for `exclude` (outside: undefined). */
  static relativeTo(root: string, path: string): string | undefined {
    const rel = relative(root, path);
    return rel === '' || rel.startsWith('..') ? undefined : rel;
  }
}

async function exists(path: string): Promise<boolean> {
  return (await stat(path).catch(() => undefined)) !== undefined;
}

async function copyKeepingTime(from: string, to: string): Promise<void> {
  const info = await stat(from);
  await copyFile(from, to);
  await utimes(to, info.atime, info.mtime);
}

function must(args: readonly string[], run: GitRun): void {
  if (!run.ok) throw new NeoError('FLOW_GATE_TREE', `could not build the gate's tree: ${gitFailure(args, run)}`);
}
