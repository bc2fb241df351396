/**
 * A repository as neo recorded it: its work tree, its git dir and common dir, pinned. Every call
 * runs with GIT_DIR/GIT_WORK_TREE/GIT_COMMON_DIR set to the recorded folders, so a `.git` entry
 * rewritten since (`gitdir: <a folder the agent wrote>`) is never followed, and each call first
 * checks that the `.git` entry still leads there, refusing loudly when it does not.
 */
import { statSync } from 'node:fs';
import { readFile, realpath, stat } from 'node:fs/promises';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { relativeInside } from '../posture/index.js';
import { NeoError } from '../util/errors.js';
import { readRegularFile } from '../util/regular-file.js';
import { DRIVER_KEYS, filterOverrides, hasIncludes } from './git-hardening.js';
import { gitFailure, runGit, type GitCallOptions, type GitRun } from './git.js';

/** Where a repository lives: all absolute, symlinks resolved. */
export interface GitLocation {
  /** The work tree's top folder. */
  top: string;
  /** This work tree's git dir (`<top>/.git`, or `<common>/worktrees/<name>` for a linked worktree). */
  gitDir: string;
  /** The repository's shared git dir (objects, refs, config). */
  commonDir: string;
}

export class GitRepo {
  readonly location: GitLocation;

  private constructor(location: GitLocation) {
    this.location = location;
  }

  /** A repository recorded earlier (a run's worktree), pinned as it was. */
  static pinned(location: GitLocation): GitRepo {
    return new GitRepo(location);
  }

  /**
   * The worktree `git worktree add` just made at `root` from this repository, located without
   * running git: its `.git` file names its git dir, and its common dir is this repository's.
   */
  async linked(root: string): Promise<GitRepo> {
    const top = await realpath(root);
    const gitDir = await gitDirOf(top);
    if (gitDir === undefined) throw new NeoError('GIT_DIR_CHANGED', `git created no work tree at ${root}`);
    const location = { top, gitDir, commonDir: this.location.commonDir };
    refuseInside(location);
    return new GitRepo(location);
  }

  /**
   * The repository whose work tree holds `dir`, found by git itself but never above `ceilings`
   * (GIT_CEILING_DIRECTORIES: git does not climb into them). Undefined outside a work tree.
   * Refused (GIT_DIR_INSIDE_WORKTREE) when the `.git` entry points into the work tree it
   * belongs to: a real repository's git dir is `<top>/.git` or lies outside the work tree.
   */
  static async discover(dir: string, ceilings: readonly string[] = []): Promise<GitRepo | undefined> {
    return (await GitRepo.#find(dir, ceilings, false))?.repo;
  }

  /**
   * `discover`, and the commit HEAD is at (undefined in a repository without one), read by the
   * same git call.
   */
  static async discoverHead(dir: string): Promise<{ repo: GitRepo; head: string | undefined } | undefined> {
    return GitRepo.#find(dir, [], true);
  }

  static async #find(
    dir: string,
    ceilings: readonly string[],
    withHead: boolean,
  ): Promise<{ repo: GitRepo; head: string | undefined } | undefined> {
    const env: Record<string, string> = {};
    if (ceilings.length > 0) env.GIT_CEILING_DIRECTORIES = ceilings.map((c) => resolve(c)).join(':');
    const args = ['rev-parse', '--show-toplevel', '--absolute-git-dir', '--git-common-dir'];
    // `--verify --quiet` makes a missing HEAD exit 1 after the three folders, not fail the call.
    const run = await runGit(dir, withHead ? [...args, '--verify', '--quiet', 'HEAD^{commit}'] : args, {
      env,
      okExitCodes: withHead ? [0, 1] : [0],
    });
    if (!run.ok) return undefined;
    const [top, gitDir, common, head] = run.stdout.split('\n');
    if (!top || !gitDir || !common) return undefined;
    const location = {
      top: await realpath(top),
      gitDir: await realpath(gitDir),
      commonDir: await realpath(isAbsolute(common) ? common : resolve(dir, common)),
    };
    refuseInside(location);
    return { repo: new GitRepo(location), head: withHead && run.exitCode === 0 && head ? head : undefined };
  }

  /** The environment that pins this repository for a call. */
  get env(): Record<string, string> {
    const { top, gitDir, commonDir } = this.location;
    return { GIT_DIR: gitDir, GIT_WORK_TREE: top, GIT_COMMON_DIR: commonDir };
  }

  /**
   * Runs git in the work tree's top, pinned and hardened. Throws GIT_DIR_CHANGED when the
   * `.git` entry no longer leads to the recorded git dir; any git failure is a result.
   */
  async run(args: readonly string[], options: GitCallOptions = {}): Promise<GitRun> {
    await this.verify();
    return runGit(this.location.top, args, {
      ...options,
      overrides: [...(await this.#filterOverrides()), ...(options.overrides ?? [])],
      env: { ...this.env, ...options.env },
    });
  }

  /** Trimmed stdout of a call that must succeed; throws GIT_FAILED naming the call. */
  async output(args: readonly string[], options: GitCallOptions = {}): Promise<string> {
    const run = await this.run(args, options);
    if (!run.ok) throw new NeoError('GIT_FAILED', `${gitFailure(args, run)} (in ${this.location.top})`);
    return run.stdout.trim();
  }

  /** Checks that `<top>/.git` still leads to the recorded git dir; throws GIT_DIR_CHANGED if not. */
  async verify(): Promise<void> {
    const { top, gitDir } = this.location;
    const now = await gitDirOf(top);
    if (now === gitDir) return;
    throw new NeoError(
      'GIT_DIR_CHANGED',
      `${join(top, '.git')} now ${now === undefined ? 'is missing or unreadable' : `points at ${now}`}; neo recorded ${gitDir} and will not run git there`,
      {
        hint: "something rewrote the work tree's .git entry (an agent at full posture, or a tool it ran); inspect it before trusting this work tree",
      },
    );
  }

  /**
   * The filter drivers of the repository's own config, blanked. neo's git reads no global or
   * system config (git-hardening.ts), so the listing is a function of the repository's config
   * and the work tree's config.worktree: it is kept per their signatures for the process, shared
   * by every GitRepo of the same repository (a run's worktree, its step base, a session's diff
   * capture), and listed again whenever either file changed (or always, when the config
   * includes other files). Calls started together share one listing. A config that names no
   * driver and includes nothing (most) needs no listing: `definesNoDriver`.
   */
  async #filterOverrides(): Promise<Array<[string, string]>> {
    const { gitDir, commonDir } = this.location;
    const [config, worktree] = await Promise.all(
      [join(commonDir, 'config'), join(gitDir, 'config.worktree')].map(signature),
    );
    // A missing config.worktree is the same (no) content wherever it is missing.
    const key = `${commonDir}:${config}|${worktree === 'missing' ? worktree : `${gitDir}:${worktree}`}`;
    const known = overrideLists.get(key);
    if (known !== undefined) return known;
    const pending = listings.get(key) ?? this.#listOverrides(key);
    listings.set(key, pending);
    try {
      return await pending;
    } finally {
      if (listings.get(key) === pending) listings.delete(key);
    }
  }

  async #listOverrides(key: string): Promise<Array<[string, string]>> {
    // The common case without a git process: a config that names no driver and includes nothing.
    if (definesNoDriver(this.location)) return cacheOverrides(key, []);
    const listing = await runGit(this.location.top, ['config', '-z', '--get-regexp', DRIVER_KEYS], {
      okExitCodes: [0, 1],
      env: this.env,
    });
    if (!listing.ok)
      throw new NeoError(
        'GIT_CONFIG_UNREADABLE',
        `could not read the config of ${this.location.commonDir}: ${listing.stderr}`,
      );
    const list = filterOverrides(listing.stdout);
    return hasIncludes(listing.stdout) ? list : cacheOverrides(key, list);
  }
}

/** Keeps a listing by its config signature; bounded: a long-lived process (the daemon, `neo serve`) meets many repositories. */
function cacheOverrides(key: string, list: Array<[string, string]>): Array<[string, string]> {
  if (overrideLists.size >= MAX_OVERRIDE_LISTS) overrideLists.delete(overrideLists.keys().next().value!);
  overrideLists.set(key, list);
  return list;
}

/**
 * Whether the repository's config files certainly define no filter driver and include no other
 * file, read without git: neither file holds the letters `filter` or `include` in any case. git
 * takes a section's name from the file's own letters (`[filter "x"]`, `[filter.x]`,
 * `[includeIf "…"]`, lower-cased, no escapes), so a file without those words defines neither;
 * one that holds them anywhere (a comment, a value) is listed by git itself. Anything but a
 * small regular file is also left to git; opened without blocking, so a FIFO planted as the
 * config never stalls neo.
 */
function definesNoDriver({ gitDir, commonDir }: GitLocation): boolean {
  for (const path of [join(commonDir, 'config'), join(gitDir, 'config.worktree')]) {
    const text = smallFileText(path);
    if (text === undefined || (text !== 'missing' && /filter|include/i.test(text))) return false;
  }
  return true;
}

/** Past this size a config is listed by git rather than read here. */
const MAX_SCANNED_CONFIG = 64 * 1024;

/** A regular file's bytes as latin1 (one char a byte), `missing`, or undefined when it is anything else. */
function smallFileText(path: string): string | undefined {
  const bytes = readRegularFile(path, MAX_SCANNED_CONFIG);
  return typeof bytes === 'object' ? bytes.toString('latin1') : bytes;
}

/** Filter-driver overrides by config signature (see `#filterOverrides`), oldest first. */
const overrideLists = new Map<string, Array<[string, string]>>();
const listings = new Map<string, Promise<Array<[string, string]>>>();
const MAX_OVERRIDE_LISTS = 64;

/**
 * The nearest folder at or above `dir` holding a `.git` (a folder, or the file a worktree or
 * submodule has), never climbing into `ceilings` (as GIT_CEILING_DIRECTORIES). No process and
 * no thread-pool trip per level: a folder outside git never spawns git.
 */
export function gitMarker(dir: string, ceilings: readonly string[] = []): string | undefined {
  for (let at = resolve(dir); ; at = dirname(at)) {
    if (statSync(join(at, '.git'), { throwIfNoEntry: false }) !== undefined) return at;
    const parent = dirname(at);
    if (parent === at || ceilings.includes(parent)) return undefined;
  }
}

/** Where `<top>/.git` leads now: the folder itself, or the target of its `gitdir:` line. */
async function gitDirOf(top: string): Promise<string | undefined> {
  const entry = join(top, '.git');
  try {
    const info = await stat(entry);
    if (info.isDirectory()) return await realpath(entry);
    // A FIFO or a device planted as `.git` is never opened: reading one could wait forever.
    if (!info.isFile()) return undefined;
    const line = /^gitdir: (.*)$/m.exec(await readFile(entry, 'utf8'))?.[1]?.trim();
    return line === undefined ? undefined : await realpath(resolve(top, line));
  } catch {
    return undefined;
  }
}

function refuseInside(location: GitLocation): void {
  const { top, gitDir, commonDir } = location;
  const dotGit = join(top, '.git');
  for (const dir of [gitDir, commonDir]) {
    if (isInside(dotGit, dir) || !isInside(top, dir)) continue;
    throw new NeoError(
      'GIT_DIR_INSIDE_WORKTREE',
      `${dotGit} points at ${dir}, a folder inside the work tree itself; neo will not run git there`,
      {
        hint: 'a real repository keeps its git dir in .git or outside the work tree; inspect this one before trusting it',
      },
    );
  }
}

function isInside(root: string, path: string): boolean {
  return relativeInside(root, path) !== undefined;
}

async function signature(path: string): Promise<string> {
  try {
    const info = await stat(path);
    return `${info.ino}:${info.size}:${info.mtimeMs}:${info.ctimeMs}`;
  } catch {
    return 'missing';
  }
}
