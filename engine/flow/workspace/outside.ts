import { realpath } from 'node:fs/promises';
import { join } from 'node:path';
import { GitRepo, changedPaths, gitMarker, snapshotTree, type SnapshotStore } from '../../execution/index.js';
import type { WorkspaceRecord } from '../store/run-files.js';
import { stampChanges, stampTree, type TreeStamp } from './tree-stamp.js';
import { changedFolders, stampFolders, type FolderStamp } from './dependencies.js';
import { defined } from '../../util/defined.js';
import { ownOutputFiles } from '../../util/own-output.js';

/** NEO_HOME's user layer and trust: what an escaped agent could change to raise its own ceiling later. */
const HOME_ENTRIES = ['trust.json', 'policy.yaml', 'neo.yaml', '.env', 'definitions', 'agents', 'flows'];

interface CheckoutTree {
  repo: GitRepo;
  store: SnapshotStore;
  /** A copy came from this folder of the repository (a worktree, from all of it). */
  within?: string;
  tree: string;
}

/**
 * What lies outside a run's workspace and must not change while an agent step runs: the user's
 * checkout the workspace came from (a worktree's repository, a copy's project folder) and
 * NEO_HOME's user layer (the git metadata of every repository the run touches is
 * `GitMetaWatch`'s). A baseline when the step starts; {@link changes} names what moved since. It
 * sits above every backend, so a CLI that writes outside without asking is caught as surely as
 * one that asks.
 */
export class OutsideWatch {
  readonly #checkout: CheckoutTree | undefined;
  readonly #stampPaths: string[];
  readonly #skip: string[];
  readonly #stamp: TreeStamp;
  readonly #lent: FolderStamp[];

  private constructor(
    checkout: CheckoutTree | undefined,
    stampPaths: string[],
    skip: string[],
    stamp: TreeStamp,
    lent: FolderStamp[],
  ) {
    this.#checkout = checkout;
    this.#stampPaths = stampPaths;
    this.#skip = skip;
    this.#stamp = stamp;
    this.#lent = lent;
  }

  /**
   * `unconfined`: the agent runs without a sandbox, where the checkout's dependency folders lent
   * to the workspace are writable through its links; they are watched too (git ignores them, so
   * the checkout's snapshot does not see them). In bwrap they are read-only.
   */
  static async open(options: {
    workspace: WorkspaceRecord;
    home: string;
    runDir: string;
    unconfined?: boolean;
  }): Promise<OutsideWatch> {
    const { workspace, home } = options;
    // neo's own records and output: its home, the workspace, and the files its stdout and stderr
    // are redirected into (`neo flow run --json > run.ndjson` in the checkout is not an escape).
    const own = [home, workspace.root, ...ownOutputFiles()];
    const store: SnapshotStore = { dir: join(options.runDir, 'snapshots'), exclude: own };
    const stampPaths = HOME_ENTRIES.map((name) => join(home, name));
    let checkout: CheckoutTree | undefined;
    if (workspace.isolation !== 'inplace') {
      const source = workspace.isolation === 'worktree' ? workspace.repo : workspace.projectDir;
      const real = source === undefined ? undefined : await realpath(source).catch(() => undefined);
      const repo = real === undefined || gitMarker(real) === undefined ? undefined : await GitRepo.discover(real);
      if (repo !== undefined) {
        const within = workspace.isolation === 'copy' ? real : undefined;
        checkout = {
          repo,
          store,
          ...defined({ within }),
          tree: await snapshotTree(repo, store, within),
        };
      } else if (real !== undefined) stampPaths.push(real);
    }
    // neo's own folder may sit inside the project (its records change all the time): only its user layer counts.
    const skip = own;
    const lent = options.unconfined === true ? await stampLent(workspace) : [];
    return new OutsideWatch(checkout, stampPaths, skip, await stampTree(stampPaths, skip), lent);
  }

  /** The paths outside the workspace that changed since the step started (absolute, sorted). */
  async changes(): Promise<string[]> {
    const changed = stampChanges(this.#stamp, await stampTree(this.#stampPaths, this.#skip));
    const checkout = this.#checkout;
    if (checkout !== undefined) {
      const now = await snapshotTree(checkout.repo, checkout.store, checkout.within);
      if (now !== checkout.tree) {
        const top = checkout.repo.location.top;
        changed.push(
          ...(await changedPaths(checkout.repo, checkout.store, checkout.tree, now)).map((p) => join(top, p)),
        );
      }
    }
    if (this.#lent.length > 0) {
      const now = await stampFolders(
        '/',
        this.#lent.map((folder) => folder.path),
      );
      changed.push(...changedFolders(this.#lent, now).map((path) => `/${path}`));
    }
    return [...new Set(changed)].sort();
  }
}

/** The checkout's folders lent to the workspace, stamped as the gate stamps dependency folders. */
function stampLent(workspace: WorkspaceRecord): Promise<FolderStamp[]> {
  return stampFolders(
    '/',
    (workspace.dependencies ?? []).map((folder) => folder.from.slice(1)),
  );
}
