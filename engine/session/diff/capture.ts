/**
 * Per-turn diff capture (seed 004 §6). In a git work tree: a snapshot of the tree's content when
 * the turn starts and when it ends, and the net change between the two (a file already dirty
 * or untracked, a plain `mv`, an edit undone within the turn all come out right). Outside git:
 * the paths of file-edit tool calls, relative to the working tree.
 *
 * neo's home is a wall: git never climbs into it looking for a repository (a copy workspace
 * under a NEO_HOME that sits in a dotfiles repository is not that repository), and nothing
 * under it is ever part of a diff. Every git call is pinned to the repository found at open
 * (execution/git-repo): a `.git` rewritten since is refused, never followed. Best effort
 * otherwise: it never throws, because a capture problem must not break the read that asked.
 */
import { mkdtemp, realpath, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { GitRepo, diffTrees, gitMarker, snapshotTree, type SnapshotStore } from '../../execution/index.js';
import { errorMessage, NeoError } from '../../util/errors.js';
import type { TurnDiff, TurnDiffFile } from '../contract.js';
import { MAX_DIFF_BYTES, capUnifiedDiff, summaryLine } from './summary.js';
import { editPathsOf, workspacePath, type ToolCall } from './tool-events.js';

export interface CaptureOptions {
  /** The backend's file-edit tools (the fallback's source). */
  editToolNames?: readonly string[];
  /** neo's home: git never climbs into it and nothing under it is part of a diff. */
  home?: string;
  /** Where the snapshots' objects go until close (in the session's folder); a temp folder otherwise. */
  storeDir?: string;
  /**
   * The work tree's snapshot its caller took itself just before this start, with nothing run in
   * the tree since (a flow step's base): the first turn's baseline, instead of a new discovery and
   * snapshot. Used only when it is the snapshot of the repository `cwd` belongs to, leaving out
   * the same paths; the capture then keeps its snapshots in that store, which it does not own.
   * In-process only (ExecuteOptions): no op input can hand one over.
   */
  baseline?: DiffBaseline;
}

/** A snapshot taken by the caller: the repository, the store holding its objects, the tree. */
export interface DiffBaseline {
  repo: GitRepo;
  store: SnapshotStore;
  tree: string;
}

interface GitSide {
  repo: GitRepo;
  store: SnapshotStore;
  baseline: string;
  /** The store is the caller's (a handed baseline's): close leaves it. */
  borrowed: boolean;
}

export class TurnDiffCapture {
  readonly #cwd: string;
  readonly #editToolNames: readonly string[];
  readonly #git: GitSide | undefined;
  /** Why git diffs were refused at open (a `.git` pointing into the work tree). */
  readonly #refused: string | undefined;
  #editedPaths = new Set<string>();

  private constructor(cwd: string, editToolNames: readonly string[], git: GitSide | undefined, refused?: string) {
    this.#cwd = cwd;
    this.#editToolNames = editToolNames;
    this.#git = git;
    this.#refused = refused;
  }

  /** Opens a capture for `cwd` and snapshots the first turn's baseline. Never throws. */
  static async open(cwd: string, options: CaptureOptions = {}): Promise<TurnDiffCapture> {
    const editToolNames = options.editToolNames ?? [];
    const ceilings = options.home === undefined ? [] : [resolve(options.home)];
    if (gitMarker(cwd, ceilings) === undefined) return new TurnDiffCapture(cwd, editToolNames, undefined);
    try {
      const handed = await usableBaseline(cwd, ceilings, options.baseline);
      if (handed !== undefined)
        return new TurnDiffCapture(cwd, editToolNames, {
          repo: handed.repo,
          store: handed.store,
          baseline: handed.tree,
          borrowed: true,
        });
      const repo = await GitRepo.discover(cwd, ceilings);
      if (repo === undefined) return new TurnDiffCapture(cwd, editToolNames, undefined);
      const store: SnapshotStore = {
        dir: options.storeDir ?? (await mkdtemp(join(tmpdir(), 'neo-snapshots-'))),
        exclude: ceilings,
      };
      const baseline = await snapshotTree(repo, store);
      return new TurnDiffCapture(cwd, editToolNames, { repo, store, baseline, borrowed: false });
    } catch (error) {
      const refused = error instanceof NeoError && error.code.startsWith('GIT_DIR_') ? error.message : undefined;
      return new TurnDiffCapture(cwd, editToolNames, undefined, refused);
    }
  }

  /** Whether git diffs are available (else the tool-event fallback applies). */
  get isGit(): boolean {
    return this.#git !== undefined;
  }

  /** Feeds a tool call (the fallback's only source). Cheap: no I/O. */
  noteToolUse(call: ToolCall): void {
    if (this.#editToolNames.length === 0) return;
    for (const path of editPathsOf(call, this.#editToolNames)) this.#editedPaths.add(workspacePath(this.#cwd, path));
  }

  /** Finishes the current turn's diff and opens the next turn's baseline. Never throws. */
  async settle(): Promise<TurnDiff> {
    try {
      if (this.#refused !== undefined) return this.#refusedDiff(this.#refused);
      return this.#git !== undefined ? await this.#settleGit(this.#git) : this.#settleToolEvents();
    } catch (error) {
      if (error instanceof NeoError && error.code === 'GIT_DIR_CHANGED') return this.#refusedDiff(error.message);
      return { source: 'none', files: [], summaryLine: `${summaryLine('none', [])}: ${errorMessage(error)}` };
    } finally {
      this.#editedPaths = new Set();
    }
  }

  /**
   * Takes the next turn's baseline afresh, with no diff: what changed since the last turn was
   * neo's own doing between turns (an undo), which no turn of the agent's may be charged with.
   */
  async rebase(): Promise<void> {
    try {
      if (this.#git !== undefined && this.#refused === undefined)
        this.#git.baseline = await snapshotTree(this.#git.repo, this.#git.store);
    } catch {
      // The next settle diffs against the old baseline: the undo shows in that turn, nothing is lost.
    } finally {
      this.#editedPaths = new Set();
    }
  }

  /** Removes the snapshots' objects (only the next turn's baseline needed them), unless the store is the caller's. */
  async close(): Promise<void> {
    if (this.#git !== undefined && !this.#git.borrowed) await rm(this.#git.store.dir, { recursive: true, force: true });
  }

  #settleToolEvents(): TurnDiff {
    if (this.#editedPaths.size === 0) return { source: 'none', files: [], summaryLine: summaryLine('none', []) };
    const files: TurnDiffFile[] = [...this.#editedPaths].sort().map((path) => ({ path, status: 'M' }));
    return { source: 'tool-events', files, summaryLine: summaryLine('tool-events', files) };
  }

  /** Git refused loudly; what the tool calls say is all there is. */
  #refusedDiff(reason: string): TurnDiff {
    const fallback = this.#settleToolEvents();
    return { ...fallback, summaryLine: `git diff refused: ${reason}; ${fallback.summaryLine}` };
  }

  async #settleGit(git: GitSide): Promise<TurnDiff> {
    const now = await snapshotTree(git.repo, git.store);
    const change = await diffTrees(git.repo, git.store, git.baseline, now, MAX_DIFF_BYTES);
    git.baseline = now;
    const diff: TurnDiff = { source: 'git', files: change.files, summaryLine: summaryLine('git', change.files) };
    const unified = capUnifiedDiff(change.patch, { totalBytes: change.patchBytes });
    if (unified.text !== '') diff.unifiedDiff = unified.text;
    if (unified.truncated) diff.truncated = true;
    return diff;
  }
}

/**
 * A handed baseline when it is what this capture's own first snapshot would be: the nearest
 * `.git` at or above `cwd` is the top of the handed repository (no nested repository between),
 * and the handed store leaves out exactly neo's home. Else undefined: the capture takes its own.
 */
async function usableBaseline(
  cwd: string,
  ceilings: readonly string[],
  baseline: DiffBaseline | undefined,
): Promise<DiffBaseline | undefined> {
  if (baseline === undefined) return undefined;
  const marker = gitMarker(cwd, ceilings);
  const top = marker === undefined ? undefined : await realpath(marker).catch(() => undefined);
  if (top === undefined || top !== baseline.repo.location.top) return undefined;
  const excluded = (baseline.store.exclude ?? []).map((path) => resolve(path));
  return excluded.length === ceilings.length && excluded.every((path, i) => path === ceilings[i])
    ? baseline
    : undefined;
}
