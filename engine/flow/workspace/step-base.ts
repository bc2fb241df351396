import { readFile, realpath } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { NeoError } from '../../util/errors.js';
import { GitRepo, diffTrees, snapshotTree, type ChangedFile, type SnapshotStore } from '../../execution/index.js';
import type { WorkspaceRecord } from '../store/run-files.js';
import { worktreeRepo } from './worktree.js';
import { realFolderSync } from '../../util/no-follow.js';
import { writeFileAtomic } from '../../util/atomic-file.js';

/** Cap of a step's patch in its outputs. */
export const MAX_STEP_PATCH_BYTES = 64 * 1024;

/** Where one execution of a unit works, and what identifies the unit's start. */
export interface StepPlace {
  workspace: WorkspaceRecord;
  home: string;
  /** The run's folder (its snapshots live there). */
  runDir: string;
  /** The unit (and loop iteration) the base belongs to. */
  key: string;
  /** When the unit first started: kept across resumes and retries, new for a fresh unit. */
  startedAt: string;
}

/** A step's net change: from its base to the work tree now. */
export interface StepTreeDiff {
  files: ChangedFile[];
  patch: string;
  patchBytes: number;
}

/**
 * Where an agent step started: the work tree's content as a tree, snapshotted at the step's
 * FIRST start and recorded in the run's folder, so a step resumed after a kill (or retried)
 * measures its change from there, not from where the killed attempt left the tree. Only a
 * workspace in git has one; elsewhere the step's change is its turns' tool events.
 */
export class StepBase {
  readonly repo: GitRepo;
  readonly store: SnapshotStore;
  readonly tree: string;
  /**
   * The tree was snapshotted by this open (the unit's first start), so it is the work tree as it
   * is now; a base read back from the run's folder (a resume, a retry) is where the unit FIRST
   * started, which the tree may have left since.
   */
  readonly taken: boolean;
  #last: { tree: string; diff: StepTreeDiff } | undefined;

  private constructor(repo: GitRepo, store: SnapshotStore, tree: string, taken: boolean) {
    this.repo = repo;
    this.store = store;
    this.tree = tree;
    this.taken = taken;
  }

  /**
   * The base of unit `key` started at `startedAt` (the unit's first start; a unit made fresh
   * by a resume or `--rerun` has a new one), recorded under `runDir`. Undefined outside git.
   */
  static async open(options: StepPlace): Promise<StepBase | undefined> {
    const repo = await workspaceRepo(options.workspace, options.home);
    if (repo === undefined) return undefined;
    const store: SnapshotStore = { dir: join(options.runDir, 'snapshots'), exclude: [options.home] };
    const file = join(options.runDir, 'snapshots', 'bases', `${options.key.replace(/[^\w.-]/g, '_')}.json`);
    const recorded = await readBase(file);
    if (recorded?.startedAt === options.startedAt) return new StepBase(repo, store, recorded.tree, false);
    const tree = await snapshotTree(repo, store);
    // Made (or found) as real folders, never through a link planted in the run's folder.
    realFolderSync(options.runDir, 'snapshots', 'bases');
    await writeFileAtomic(file, `${JSON.stringify({ startedAt: options.startedAt, tree })}\n`, { private: true });
    return new StepBase(repo, store, tree, true);
  }

  /**
   * The net change from the base to the work tree now. A tree names its content, so the diff of
   * the last tree seen is kept: a step's acceptance and its settle ask for it in turn, and the
   * second asks git only for the snapshot when nothing changed in between.
   */
  async diff(): Promise<StepTreeDiff> {
    const now = await snapshotTree(this.repo, this.store);
    if (this.#last?.tree === now) return this.#last.diff;
    const change = await diffTrees(this.repo, this.store, this.tree, now, MAX_STEP_PATCH_BYTES);
    const diff = { files: change.files, patch: change.patch, patchBytes: change.patchBytes };
    this.#last = { tree: now, diff };
    return diff;
  }
}

/**
 * The repository a workspace's steps work in, pinned: a worktree's as recorded at creation;
 * in place, the one whose top is the workspace root (git never looks above it, nor into neo's
 * home: a `.git` removed since does not lead to an enclosing repository). A copy has none.
 */
export async function workspaceRepo(workspace: WorkspaceRecord, home: string): Promise<GitRepo | undefined> {
  if (workspace.isolation === 'worktree') return worktreeRepo(workspace);
  if (workspace.isolation !== 'inplace' || workspace.repo === undefined) return undefined;
  const root = await realpath(workspace.root);
  const repo = await GitRepo.discover(root, [dirname(root), home]);
  if (repo?.location.top !== root)
    throw new NeoError('GIT_DIR_CHANGED', `${root} is no longer the top of a git work tree (its .git is gone)`);
  return repo;
}

async function readBase(file: string): Promise<{ startedAt: string; tree: string } | undefined> {
  try {
    const value = JSON.parse(await readFile(file, 'utf8')) as { startedAt?: unknown; tree?: unknown };
    return typeof value.startedAt === 'string' && typeof value.tree === 'string'
      ? { startedAt: value.startedAt, tree: value.tree }
      : undefined;
  } catch {
    return undefined;
  }
}
