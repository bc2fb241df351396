/**
 * The trees an agent step's gate judges. Each gate run gets a fresh one, protect or not, in a
 * private folder under NEO_HOME (`gates/<run>/<unit>/tree-*`, 0700; NEO_HOME is hidden from every
 * sandbox and no path the agent sees leads there), removed after without following a link. It
 * is git's view of the workspace — the base plus the agent's tracked edits and untracked files
 * git does not ignore, so a git-ignored file the agent made (a `node_modules/.bin/node` shim) is
 * not there — written out from a private snapshot (private-snapshot.ts), then the protected
 * paths as they were at the step's base (protected-base.ts). The dependency folders present at
 * the step's base (dependencies.ts) are shown read-only at their place; if any changed since,
 * the gate does not judge with them (FLOW_GATE_DEPENDENCIES_CHANGED).
 *
 * In bwrap the tree appears at the workspace's own path, with the protected paths, the
 * dependency folders and git's metadata bound read-only over it, so code under test cannot
 * rewrite a test before the runner reads it. Unconfined (`sandbox: none`) the tree is where it
 * is, the dependency folders are links to the workspace's, and nothing is read-only.
 */
import { chmod, lstat, mkdir, mkdtemp, readdir, realpath, rm, symlink, writeFile } from 'node:fs/promises';
import { dirname, isAbsolute, join, relative, sep } from 'node:path';
import type { GitRepo, SandboxBind } from '../../execution/index.js';
import { NeoError } from '../../util/errors.js';
import { mkdirPrivate } from '../../util/private-store.js';
import { storeKey } from '../../util/store-key.js';
import type { WorkspaceRecord } from '../store/run-files.js';
import { changedFolders, findDependencyFolders, stampFolders, type FolderStamp } from './dependencies.js';
import { PrivateSnapshots, type Snapshot } from './private-snapshot.js';
import { ProtectedBase } from './protected-base.js';
import { readGateRecord, writeGateRecord } from './gate-record.js';
import { workspaceRepo } from './step-base.js';

const BASE_KIND = 'neo gate base v1';

/** One fresh tree, ready for one gate run. */
export interface GateTree {
  /** The tree on the host. */
  dir: string;
  /** The snapshot of the workspace it was made from: the same id means the same content. */
  judged: Snapshot;
  /** Read-only binds over it inside bwrap (protected paths, dependency folders, git's metadata). */
  binds: SandboxBind[];
  /** Where the gate runs: the step's folder (at the workspace's path in bwrap, in the tree unconfined). */
  cwd: string;
  /**
   * The step's folder in the tree on the host, where neo itself reads the tree (in bwrap `cwd`
   * is the workspace's path, the agent's files outside the sandbox).
   */
  hostCwd: string;
  /** Removes it (links inside are removed, never followed). */
  dispose(): Promise<void>;
}

interface BaseRecord {
  scope: string;
  startedAt: string;
  dependencies: FolderStamp[];
}

/**
 * Where the private gate state of one unit of a run lives: under NEO_HOME (hidden from every
 * sandbox), beside nothing a confined process can reach. A run's is `gates/<run>`.
 */
export function gateUnitDir(home: string, runId: string, key: string): string {
  return join(gateRunDir(home, runId), safe(key));
}

/** Every unit's gate state of one run: what `neo flow clean` removes with the run. */
export function gateRunDir(home: string, runId: string): string {
  return join(home, 'gates', safe(runId));
}

export class GateTrees {
  /** The step's protected originals (undefined without `protect:`). */
  readonly protected: ProtectedBase | undefined;
  readonly #workspace: WorkspaceRecord;
  readonly #repo: GitRepo | undefined;
  readonly #dir: string;
  readonly #snapshots: PrivateSnapshots;
  readonly #base: BaseRecord;

  private constructor(init: {
    workspace: WorkspaceRecord;
    repo: GitRepo | undefined;
    dir: string;
    snapshots: PrivateSnapshots;
    base: BaseRecord;
    protected: ProtectedBase | undefined;
  }) {
    this.#workspace = init.workspace;
    this.#repo = init.repo;
    this.#dir = init.dir;
    this.#snapshots = init.snapshots;
    this.#base = init.base;
    this.protected = init.protected;
  }

  /**
   * The gate state of the unit `key` started at `startedAt`, taken before its agent starts (at
   * its first start: its dependency folders and their stamps, its protected originals; read
   * back, authenticated, when it is resumed).
   */
  static async open(options: {
    workspace: WorkspaceRecord;
    home: string;
    /** The unit's private folder ({@link gateUnitDir}). */
    dir: string;
    /** Names the unit in its records (`<run>/<unit key>`). */
    scope: string;
    startedAt: string;
    protected?: ProtectedBase;
    /** The run's trusted dependency stamps (trusted-dependencies.ts); none: the unit's start. */
    trusted?: readonly FolderStamp[];
  }): Promise<GateTrees> {
    const { workspace, home, dir, scope, startedAt } = options;
    const root = workspace.root;
    await mkdirPrivate(dir);
    const repo = await workspaceRepo(workspace, home);
    const key = storeKey(home);
    let base = await readBase(join(dir, 'base.json'), key);
    if (base?.scope !== scope || base.startedAt !== startedAt) {
      // The run's trusted stamps when it has them: a runner an earlier agent step rewrote differs.
      const dependencies =
        options.trusted === undefined
          ? await stampFolders(
              root,
              await findDependencyFolders(root, repo === undefined ? undefined : { repo }, [home]),
            )
          : [...options.trusted];
      base = { scope, startedAt, dependencies };
      await writeGateRecord(join(dir, 'base.json'), key, BASE_KIND, base);
    }
    const homeInside = PrivateSnapshots.relativeTo(root, home);
    const exclude = [
      ...(homeInside === undefined ? [] : [homeInside]),
      ...(repo === undefined ? base.dependencies.map((d) => d.path) : []),
    ];
    const snapshots = await PrivateSnapshots.open({ root, dir: join(dir, 'snapshots'), repo, exclude });
    // The stat cache is seeded now, before the agent runs.
    await snapshots.snapshot();
    return new GateTrees({ workspace, repo, dir, snapshots, base, protected: options.protected });
  }

  /** The workspace's content now (git's view), as a fresh tree's `judged` would have it. */
  snapshot(options: { exact?: boolean } = {}): Promise<Snapshot> {
    return this.#snapshots.snapshot(options);
  }

  /** The dependency folders that changed since the step's base (none: []). */
  async dependencyChanges(): Promise<string[]> {
    const now = await stampFolders(
      this.#workspace.root,
      this.#base.dependencies.map((d) => d.path),
    );
    return changedFolders(this.#base.dependencies, now);
  }

  /**
   * A fresh tree of the workspace as it is now. Throws FLOW_GATE_DEPENDENCIES_CHANGED when a
   * dependency folder changed since the base, FLOW_PROTECTED_TAMPERED when an original did.
   */
  async fresh(options: { confined: boolean; cwd: string; exact?: boolean }): Promise<GateTree> {
    const changed = await this.dependencyChanges();
    if (changed.length > 0) throw dependenciesChanged(changed);
    const dir = await mkdtemp(join(this.#dir, 'tree-'));
    const dispose = () => removeTree(dir);
    try {
      const judged = await this.#snapshots.snapshot({ into: dir, ...(options.exact ? { exact: true } : {}) });
      let files = [...judged.entries.keys()];
      let guarded: string[] = [];
      if (this.protected !== undefined) {
        // Protected paths not at the base are removed, the others written back: what remains is the originals.
        const base = this.protected;
        guarded = await base.restoreInto(dir, files);
        files = [...new Set([...files.filter((f) => !base.matches(f)), ...guarded])];
      }
      const binds = options.confined ? await this.#confinedBinds(dir, files, guarded) : [];
      if (!options.confined) await this.#unconfinedLinks(dir, guarded);
      // The step's folder may hold only ignored files: made, so the gate can start there.
      const rel = await relativeInside(this.#workspace.root, options.cwd);
      await makeFolders(dir, rel);
      const inTree = join(dir, rel);
      return { dir, judged, binds, cwd: options.confined ? options.cwd : inTree, hostCwd: inTree, dispose };
    } catch (error) {
      await dispose();
      throw error;
    }
  }

  /** In bwrap: git's metadata, the dependency folders and the protected paths, read-only over the tree. */
  async #confinedBinds(dir: string, files: readonly string[], guarded: readonly string[]): Promise<SandboxBind[]> {
    const root = this.#workspace.root;
    const binds: SandboxBind[] = [];
    const gitDir = this.#repo?.location.gitDir;
    if (gitDir !== undefined && inside(root, gitDir)) binds.push({ path: gitDir, at: gitDir });
    else if (gitDir !== undefined) await writeFile(join(dir, '.git'), `gitdir: ${gitDir}\n`);
    for (const folder of this.#base.dependencies)
      if (folder.digest !== 'missing') binds.push({ path: join(root, folder.path) });
    for (const path of readOnlyPaths(files, guarded)) {
      // A link is left as it is: a bind would follow it (its folder, when bound whole, holds it).
      if ((await lstat(join(dir, path))).isSymbolicLink()) continue;
      binds.push({ path: join(dir, path), at: join(root, path) });
    }
    return binds;
  }

  /**
   * Unconfined: git's metadata through a `.git` file, the dependency folders as links to the
   * workspace's, the protected files without write bits (a courtesy: nothing is enforced there).
   */
  async #unconfinedLinks(dir: string, guarded: readonly string[]): Promise<void> {
    const root = this.#workspace.root;
    const gitDir = this.#repo?.location.gitDir;
    if (gitDir !== undefined) await writeFile(join(dir, '.git'), `gitdir: ${gitDir}\n`);
    for (const folder of this.#base.dependencies) {
      if (folder.digest === 'missing') continue;
      if (!(await makeFolders(dir, dirname(folder.path)))) continue;
      const at = join(dir, folder.path);
      await rm(at, { recursive: true, force: true });
      await symlink(join(root, folder.path), at);
    }
    for (const path of guarded) {
      const file = join(dir, path);
      // chmod follows a link: a protected link is left alone.
      if ((await lstat(file)).isFile()) await chmod(file, 0o444);
    }
  }
}

/**
 * Most read-only binds over a gate's tree: bwrap's set-up time grows faster than the number of
 * mounts (≈ +60 ms at 200, seconds at 2,000 on the shared machine).
 */
export const MAX_READ_ONLY_BINDS = 128;

/**
 * The read-only binds for the protected paths: a folder whose every file is protected as one
 * bind (nothing can be added there either), the others file by file. Past `max`, the deepest
 * are replaced by their folders until it fits: files beside them become read-only too, which
 * costs a check that writes there, never a protected path left writable.
 */
export function readOnlyPaths(
  files: readonly string[],
  guarded: readonly string[],
  max = MAX_READ_ONLY_BINDS,
): string[] {
  const protectedSet = new Set(guarded);
  const open = new Set<string>();
  for (const file of files) {
    if (protectedSet.has(file)) continue;
    for (let dir = parentOf(file); dir !== ''; dir = parentOf(dir)) open.add(dir);
  }
  let out = new Set<string>();
  for (const file of guarded) {
    let top = file;
    for (let dir = parentOf(file); dir !== '' && !open.has(dir); dir = parentOf(dir)) top = dir;
    out.add(top);
  }
  for (;;) {
    if (out.size <= max) break;
    const depth = Math.max(...[...out].map(depthOf));
    if (depth <= 1) break; // top-level entries: bound one by one, however many
    const lifted = new Set([...out].map((path) => (depthOf(path) === depth ? parentOf(path) : path)));
    out = new Set([...lifted].filter((path) => !hasAncestorIn(path, lifted)));
  }
  return [...out].sort();
}

function hasAncestorIn(path: string, set: ReadonlySet<string>): boolean {
  for (let dir = parentOf(path); dir !== ''; dir = parentOf(dir)) if (set.has(dir)) return true;
  return false;
}

function depthOf(path: string): number {
  return path.split('/').length;
}

/** `path` relative to `root`, links resolved on both sides ('' when it is not inside). */
async function relativeInside(root: string, path: string): Promise<string> {
  const real = async (p: string) => realpath(p).catch(() => p);
  const rel = relative(await real(root), await real(path));
  return rel.startsWith('..') || isAbsolute(rel) ? '' : rel;
}

/**
 * `mkdir -p` of `rel` under `root`, stopping at anything that is not a real folder (a link is
 * never followed); whether the whole path is now real folders.
 */
async function makeFolders(root: string, rel: string): Promise<boolean> {
  let at = root;
  for (const part of rel.split(sep).filter((p) => p !== '' && p !== '.')) {
    at = join(at, part);
    const info = await lstat(at).catch(() => undefined);
    if (info === undefined) await mkdir(at);
    else if (!info.isDirectory()) return false;
  }
  return true;
}

function parentOf(path: string): string {
  const at = path.lastIndexOf('/');
  return at < 0 ? '' : path.slice(0, at);
}

function inside(root: string, path: string): boolean {
  return path === root || path.startsWith(root.endsWith(sep) ? root : root + sep);
}

function safe(name: string): string {
  return name.replace(/[^\w.-]/g, '_');
}

export function dependenciesChanged(folders: readonly string[]): NeoError {
  const list = folders.join(', ');
  return new NeoError(
    'FLOW_GATE_DEPENDENCIES_CHANGED',
    `the dependency folder${folders.length === 1 ? '' : 's'} ${list} changed since the step began; the gate judges only with the dependencies installed before it, never ones the agent changed`,
    {
      hint: 'install dependencies in a run step before the agent step (e.g. `npm ci`) and keep the agent out of them; a step that must change them (a new package) needs that install step after it, then the gate',
    },
  );
}

/** Removes a tree; a folder a check made unreadable is opened first. Links are removed, never followed. */
async function removeTree(dir: string): Promise<void> {
  try {
    await rm(dir, { recursive: true, force: true, maxRetries: 2 });
  } catch {
    await openUp(dir);
    await rm(dir, { recursive: true, force: true }).catch(() => undefined);
  }
}

async function openUp(dir: string): Promise<void> {
  const info = await lstat(dir).catch(() => undefined);
  if (info === undefined || !info.isDirectory()) return;
  await chmod(dir, 0o700).catch(() => undefined);
  for (const name of await readdir(dir).catch(() => [] as string[])) await openUp(join(dir, name));
}

function readBase(file: string, key: Buffer): Promise<BaseRecord | undefined> {
  return readGateRecord<BaseRecord>(
    file,
    key,
    BASE_KIND,
    "something outside neo changed NEO_HOME's gate records; rerun the step from a fresh start (`neo flow resume <run> --rerun <step>`) and find out what wrote there",
  );
}
