/**
 * The git metadata that decides what git runs — a repository's config, hooks, `info/`, the
 * `commondir` and `gitdir` files that say where its metadata lies, `objects/info/alternates`,
 * the `worktrees/` and `modules/` entries' own such files, and a work tree's `.git` entry — of
 * every repository a run's steps could reach. Planted there, a `core.fsmonitor`, a hook or a
 * `commondir` leading to a config of one's own runs a command at the user's next `git status`.
 * Inside every sandbox it is read-only (`gitReadOnly` names what `runConfinement` binds so);
 * after every step, confined or not, {@link GitMetaWatch} compares it with the step's start.
 */
import { lstatSync, readdirSync, readlinkSync, realpathSync } from 'node:fs';
import { realpath } from 'node:fs/promises';
import { dirname, join, resolve, sep } from 'node:path';
import { gitMarker } from '../../execution/index.js';
import { readRegularFile } from '../../util/regular-file.js';
import type { WorkspaceRecord } from '../store/run-files.js';
import type { StepError } from '../core/state.js';

/** Where a workspace's git metadata lies (absolute host paths). */
export interface GitLayout {
  /** The work tree's `.git` entry (a folder, or a worktree's file), whether or not it exists. */
  dotGit: string;
  /** Its git dir and the repository's common dir, when the workspace is a work tree. */
  gitDir?: string;
  commonDir?: string;
}

/** Files of a git dir that name programs or where the rest of the metadata lies. */
const META_FILES = ['config', 'config.worktree', 'commondir', 'gitdir', join('objects', 'info', 'alternates')];
/** Folders of a git dir read whole: every hook is a program, `info/` holds attributes and excludes. */
const META_FOLDERS = ['hooks', 'info'];
/** Folders of a submodule's git dir that never name a program (and can be large). */
const MODULE_SKIP = new Set(['objects', 'refs', 'logs', 'lfs']);
/** Past this many entries a stamp stops walking (a hooks folder holds a dozen). */
const MAX_ENTRIES = 20_000;

/**
 * The workspace's git layout now, as git itself would find it from the `.git` entry at its root
 * (a worktree's as recorded at creation): read synchronously, since every confined process of a
 * step needs it before it starts.
 */
export function gitLayout(workspace: WorkspaceRecord): GitLayout {
  const dotGit = join(workspace.root, '.git');
  if (workspace.gitDir !== undefined && workspace.commonDir !== undefined)
    return { dotGit, gitDir: workspace.gitDir, commonDir: workspace.commonDir };
  return layoutAt(dotGit);
}

/** Where the `.git` entry `dotGit` leads: its git dir, and the common dir its `commondir` names. */
function layoutAt(dotGit: string): GitLayout {
  const gitDir = gitDirOf(dotGit);
  if (gitDir === undefined) return { dotGit };
  const common = readLine(join(gitDir, 'commondir'));
  return { dotGit, gitDir, commonDir: common === undefined ? gitDir : resolve(gitDir, common) };
}

/**
 * What a sandbox shows read-only of a workspace's git metadata: a worktree's `.git` file and the
 * git dirs recorded when neo created it (git needs them readable wherever they lie), or, in place
 * in a repository, the `.git` entry at the root and whatever git dir it leads to inside the
 * workspace (binding those read-only only takes write access away). Never a folder that workspace
 * content names elsewhere — a `.git` file, a `commondir`, a link planted by a step — since a bind
 * shows what the sandbox hides: each path is taken only as its real path, inside the workspace's
 * real root. A workspace that started without git (a copy, a folder in place) gets nothing: a
 * `.git` there is a step's own, which the check after the step names, and binding it would race
 * a parallel step that swaps it for a link.
 */
export function gitReadOnly(workspace: WorkspaceRecord): string[] {
  if (workspace.isolation === 'copy' || (workspace.isolation === 'inplace' && workspace.repo === undefined)) return [];
  const layout = gitLayout(workspace);
  const recorded = workspace.gitDir !== undefined && workspace.commonDir !== undefined;
  const root = realOrUndefined(workspace.root);
  const out = new Set<string>();
  for (const path of [layout.dotGit, layout.gitDir, layout.commonDir]) {
    if (path === undefined) continue;
    if (recorded && path !== layout.dotGit) {
      out.add(path);
      continue;
    }
    const real = realOrUndefined(path);
    if (root !== undefined && real !== undefined && (real === root || real.startsWith(root + sep))) out.add(real);
  }
  return [...out];
}

/**
 * A stamp of the git metadata of a run's workspace (and, for a copy, of the repository it was
 * copied from), taken when a step starts; {@link GitMetaWatch.tampered} names what differs since.
 */
export class GitMetaWatch {
  readonly #workspace: WorkspaceRecord;
  readonly #layouts: GitLayout[];
  /** The work trees' own git dirs (a worktree's lies among the repository's `worktrees/`). */
  readonly #own: string[];
  readonly #stamp: Map<string, string>;

  private constructor(workspace: WorkspaceRecord, layouts: GitLayout[], stamp: Map<string, string>) {
    this.#workspace = workspace;
    this.#layouts = layouts;
    this.#own = layouts.flatMap((l) => (l.gitDir === undefined ? [] : [l.gitDir]));
    this.#stamp = stamp;
  }

  static async open(workspace: WorkspaceRecord): Promise<GitMetaWatch> {
    const handed = handedOn.get(workspace);
    if (handed !== undefined) return new GitMetaWatch(workspace, handed.layouts, handed.stamp);
    const layouts = [gitLayout(workspace)];
    if (workspace.isolation === 'copy') {
      const source = await sourceLayout(workspace.projectDir);
      if (source !== undefined) layouts.push(source);
    }
    return new GitMetaWatch(workspace, layouts, stampLayouts(layouts));
  }

  /**
   * The metadata files that changed, appeared or went since the stamp, and any that lead git
   * somewhere a work tree's never should (sorted). Entries of other worktrees count only when
   * changed: another run's `git worktree add` or `remove` in the same repository is no tampering.
   */
  tampered(): string[] {
    const now = stampLayouts(this.#layouts);
    const changed = new Set(this.#layouts.flatMap(misleads));
    for (const path of new Set([...this.#stamp.keys(), ...now.keys()])) {
      const before = this.#stamp.get(path);
      const after = now.get(path);
      if (before === after) continue;
      if ((before === undefined || after === undefined) && this.#otherWorktree(path)) continue;
      changed.add(path);
    }
    if (changed.size === 0) handOn(this.#workspace, this.#layouts, now);
    return [...changed].sort();
  }

  #otherWorktree(path: string): boolean {
    return this.#layouts.some((l) => {
      if (l.commonDir === undefined) return false;
      const worktrees = join(l.commonDir, 'worktrees') + sep;
      if (!path.startsWith(worktrees)) return false;
      return !this.#own.some((dir) => path === dir || path.startsWith(dir + sep));
    });
  }
}

/**
 * A clean check's stamp, handed to a watch opened for the same workspace in the same turn of the
 * event loop — the next step of a chain, started as the one before ends — instead of walking the
 * same metadata again. Nothing of neo's can run in between (no I/O callback, no timer), and a
 * process that could (a parallel step's) changes what the older stamp is compared with just as
 * it would a fresh one: a change in between is named, never missed.
 */
const handedOn = new WeakMap<WorkspaceRecord, { layouts: GitLayout[]; stamp: Map<string, string> }>();

function handOn(workspace: WorkspaceRecord, layouts: GitLayout[], stamp: Map<string, string>): void {
  handedOn.set(workspace, { layouts, stamp });
  setImmediate(() => {
    if (handedOn.get(workspace)?.stamp === stamp) handedOn.delete(workspace);
  });
}

/** The error of a step that tampered with git metadata: it fails whatever else it did. */
export function gitMetaEscape(root: string, paths: readonly string[]): StepError {
  const shown = paths.slice(0, 10).join(', ') + (paths.length > 10 ? ', …' : '');
  return {
    code: 'FLOW_ESCAPE',
    message: `the step changed git metadata, which names the programs git runs: ${shown}`,
    hint: `do not run git in ${root} before you have inspected (and undone) these changes; a step may not change a repository's config, hooks, info/, commondir or gitdir files, or alternates`,
  };
}

/** What the run's summary says instead of anything about git when the metadata was tampered with. */
export function tamperedLines(root: string, paths: readonly string[]): string[] {
  const shown = paths.slice(0, 10).join(', ') + (paths.length > 10 ? ', …' : '');
  return [
    `git metadata changed during the run: ${shown}`,
    `neo ran no git in ${root} and committed nothing; do not run git there before you have inspected (and undone) these changes: git runs the programs they name`,
  ];
}

/**
 * Layout files that lead git where no untampered work tree does, whatever the stamp says (a
 * change made while no stamp was taken, e.g. before a resume): a main git dir holding a
 * `commondir`, or a worktree whose `.git` file or `commondir` no longer leads to the recorded dirs.
 */
function misleads(layout: GitLayout): string[] {
  const { dotGit, gitDir, commonDir } = layout;
  const out: string[] = [];
  const main = lstatSync(dotGit, { throwIfNoEntry: false })?.isDirectory() === true;
  if (main && lstatSync(join(dotGit, 'commondir'), { throwIfNoEntry: false }) !== undefined)
    out.push(join(dotGit, 'commondir'));
  if (!main && gitDir !== undefined && commonDir !== undefined && gitDir !== commonDir) {
    const leadsTo = gitDirOf(dotGit);
    if (leadsTo === undefined || !samePath(leadsTo, gitDir)) out.push(dotGit);
    const common = readLine(join(gitDir, 'commondir'));
    if (common === undefined || !samePath(resolve(gitDir, common), commonDir)) out.push(join(gitDir, 'commondir'));
    if (lstatSync(join(commonDir, 'commondir'), { throwIfNoEntry: false }) !== undefined)
      out.push(join(commonDir, 'commondir'));
  }
  return out;
}

/** The layout of the repository holding a copy's source folder, if any (found as git would, without running it). */
async function sourceLayout(projectDir: string): Promise<GitLayout | undefined> {
  const real = await realpath(projectDir).catch(() => undefined);
  const top = real === undefined ? undefined : gitMarker(real);
  return top === undefined ? undefined : layoutAt(join(top, '.git'));
}

function stampLayouts(layouts: readonly GitLayout[]): Map<string, string> {
  const stamp = new Map<string, string>();
  const record = (path: string): boolean => {
    if (stamp.size >= MAX_ENTRIES) return false;
    const signature = signatureOf(path);
    if (signature !== undefined) stamp.set(path, signature);
    return signature?.startsWith('d:') === true;
  };
  const walk = (folder: string) => {
    for (const name of listing(folder)) if (record(join(folder, name))) walk(join(folder, name));
  };
  const gitDir = (dir: string) => {
    record(dir);
    for (const file of META_FILES) record(join(dir, file));
    for (const folder of META_FOLDERS) if (record(join(dir, folder))) walk(join(dir, folder));
    for (const name of listing(join(dir, 'worktrees')))
      for (const file of ['gitdir', 'commondir', 'config.worktree']) record(join(dir, 'worktrees', name, file));
    modules(join(dir, 'modules'));
  };
  // A submodule's git dir lies under `modules/<its path>`, nested ones under their parent's.
  const modules = (folder: string) => {
    for (const file of META_FILES) record(join(folder, file));
    for (const name of listing(folder)) {
      if (MODULE_SKIP.has(name) || name === 'worktrees') continue;
      const path = join(folder, name);
      const info = lstatSync(path, { throwIfNoEntry: false });
      if (info?.isSymbolicLink()) record(path);
      if (info?.isDirectory() !== true || !record(path)) continue;
      if (META_FOLDERS.includes(name)) walk(path);
      else modules(path);
    }
  };
  const seen = new Set<string>();
  for (const layout of layouts) {
    record(layout.dotGit);
    for (const dir of [layout.gitDir, layout.commonDir]) {
      if (dir === undefined || seen.has(dir)) continue;
      seen.add(dir);
      gitDir(dir);
    }
  }
  return stamp;
}

/**
 * What identifies an entry's content without reading it: a file's size, inode and both times
 * (ctime cannot be set back the way mtime can), a link's target, a folder's inode and mode (its
 * mtime moves with every commit's lock files, which change nothing git runs).
 */
function signatureOf(path: string): string | undefined {
  const info = lstatSync(path, { throwIfNoEntry: false });
  if (info === undefined) return undefined;
  if (info.isDirectory()) return `d:${info.ino}:${info.mode}`;
  if (info.isSymbolicLink()) return `l:${info.ino}:${readlinkSafe(path)}`;
  return `f:${info.ino}:${info.mode}:${info.size}:${info.mtimeMs}:${info.ctimeMs}`;
}

function realOrUndefined(path: string): string | undefined {
  try {
    return realpathSync(path);
  } catch {
    return undefined;
  }
}

function samePath(a: string, b: string): boolean {
  if (a === b) return true;
  try {
    return realpathSync(a) === realpathSync(b);
  } catch {
    return false;
  }
}

/** A folder's entries; none for a link (a `modules` or `worktrees` linked to `/` is not walked). */
function listing(folder: string): string[] {
  if (lstatSync(folder, { throwIfNoEntry: false })?.isDirectory() !== true) return [];
  try {
    return readdirSync(folder).sort();
  } catch {
    return [];
  }
}

function readlinkSafe(path: string): string {
  try {
    return readlinkSync(path);
  } catch {
    return '?';
  }
}

/** The git dir a `.git` entry leads to: the folder itself, or its file's `gitdir:` line. */
function gitDirOf(dotGit: string): string | undefined {
  const info = lstatSync(dotGit, { throwIfNoEntry: false });
  if (info === undefined) return undefined;
  if (info.isDirectory()) return dotGit;
  const line = /^gitdir: (.*)$/m.exec(readText(dotGit) ?? '')?.[1]?.trim();
  return line === undefined || line === '' ? undefined : resolve(dirname(dotGit), line);
}

function readLine(path: string): string | undefined {
  const text = readText(path)?.trim();
  return text === undefined || text === '' ? undefined : text;
}

/** A small regular file's text (never a FIFO or a device someone planted: reading one could block). */
function readText(path: string): string | undefined {
  const bytes = readRegularFile(path, 64 * 1024);
  return typeof bytes === 'object' ? bytes.toString('utf8') : undefined;
}
