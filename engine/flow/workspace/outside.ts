import { realpath } from 'node:fs/promises';
import { join } from 'node:path';
import { GitRepo, changedPaths, gitMarker, snapshotTree, type SnapshotStore } from '../../execution/index.js';
import type { WorkspaceRecord } from '../store/run-files.js';
import { workspaceRepo } from './step-base.js';
import { stampChanges, stampTree, type TreeStamp } from './tree-stamp.js';
import { defined } from '../../util/defined.js';
import { ownOutputFiles } from '../../util/own-output.js';

/** NEO_HOME's user layer and trust: what an escaped agent could change to raise its own ceiling later. */
const HOME_ENTRIES = ['trust.json', 'policy.yaml', 'neo.yaml', '.env', 'definitions', 'agents', 'flows'];
/** A repository's files that name programs git runs (config, hooks, attributes). */
const GIT_META = ['config', 'config.worktree', 'hooks', 'info'];

interface CheckoutTree {
  repo: GitRepo;
  store: SnapshotStore;
  /** A copy came from this folder of the repository (a worktree, from all of it). */
  within?: string;
  tree: string;
}

/**
 * What lies outside a run's workspace and must not change while an agent step runs: the user's
 * checkout the workspace came from (a worktree's repository, a copy's project folder), that
 * repository's config, hooks and attributes, and NEO_HOME's user layer. A baseline when the
 * step starts; {@link changes} names what moved since. It sits above every backend, so a CLI
 * that writes outside without asking is caught as surely as one that asks.
 */
export class OutsideWatch {
  readonly #checkout: CheckoutTree | undefined;
  readonly #stampPaths: string[];
  readonly #skip: string[];
  readonly #stamp: TreeStamp;

  private constructor(checkout: CheckoutTree | undefined, stampPaths: string[], skip: string[], stamp: TreeStamp) {
    this.#checkout = checkout;
    this.#stampPaths = stampPaths;
    this.#skip = skip;
    this.#stamp = stamp;
  }

  /**
   * With `guardGit` (an agent below full posture, which may not write `.git`), an in-place
   * workspace's own git config, hooks and attributes are watched too: git runs the programs they
   * name at the user's next git command, and a CLI that writes without asking could plant them.
   */
  static async open(options: {
    workspace: WorkspaceRecord;
    home: string;
    runDir: string;
    guardGit?: boolean;
  }): Promise<OutsideWatch> {
    const { workspace, home } = options;
    // neo's own records and output: its home, the workspace, and the files its stdout and stderr
    // are redirected into (`neo flow run --json > run.ndjson` in the checkout is not an escape).
    const own = [home, workspace.root, ...ownOutputFiles()];
    const store: SnapshotStore = { dir: join(options.runDir, 'snapshots'), exclude: own };
    const stampPaths = HOME_ENTRIES.map((name) => join(home, name));
    let checkout: CheckoutTree | undefined;
    if (workspace.isolation === 'inplace' && workspace.repo !== undefined && options.guardGit === true) {
      const repo = await workspaceRepo(workspace, home);
      if (repo !== undefined) stampPaths.push(...gitMeta(repo));
    } else if (workspace.isolation !== 'inplace') {
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
        stampPaths.push(...gitMeta(repo));
      } else if (real !== undefined) stampPaths.push(real);
    }
    // neo's own folder may sit inside the project (its records change all the time): only its user layer counts.
    const skip = own;
    return new OutsideWatch(checkout, stampPaths, skip, await stampTree(stampPaths, skip));
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
    return [...new Set(changed)].sort();
  }
}

/** The files of a repository that name programs git runs: its config, hooks and `info/`. */
function gitMeta(repo: GitRepo): string[] {
  const { gitDir, commonDir } = repo.location;
  return [...GIT_META.map((name) => join(commonDir, name)), join(gitDir, 'config.worktree')];
}
