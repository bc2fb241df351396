/** Workspaces: where a run's steps work (worktree, in place, or a copy). */
import { UsageError } from '../../util/errors.js';
import type { WorkspaceRecord } from '../store/run-files.js';
import { createCopy, reopenCopy } from './copy.js';
import { GitRepo, gitMarker } from '../../execution/index.js';
import { lockInPlace, relockInPlace } from './inplace.js';
import type { Isolation, Workspace } from './workspace.js';
import { createWorktree, reopenWorktree } from './worktree.js';
import { GitMetaWatch, tamperedLines } from './git-meta.js';
import { defined } from '../../util/defined.js';
import { distrustTree } from '../../util/own-programs.js';
import type { DependencyMode } from './lend.js';

export type { Isolation, Workspace, WorkspaceSummary } from './workspace.js';
export { StepBase, type StepPlace } from './step-base.js';
export { OutsideWatch } from './outside.js';
export { GateTrees, gateUnitDir, dependenciesChanged, type GateTree } from './gate-tree.js';
export { plansGates, trustDependencies, trustedDependencies } from './trusted-dependencies.js';
export { ProtectedBase } from './protected-base.js';
export { changedPaths, type Snapshot } from './private-snapshot.js';
export {
  DEPENDENCY_FOLDER_NAMES,
  changedFolders,
  findDependencyFolders,
  isDependencyFolder,
  stampFolders,
  type FolderStamp,
} from './dependencies.js';
export { GitMetaWatch } from './git-meta.js';
export { lendableFolders, lendKind, type DependencyMode, type LentFolder } from './lend.js';
export { planDependencies, type DependencyPlan } from './lend-plan.js';
export { defaultProjectDir } from './project-dir.js';
export { remoteCloneDir } from './remote-clone.js';

/** Prepares a new run's workspace; worktree is the default in a git repository, copy elsewhere. */
export async function prepareWorkspace(options: {
  projectDir: string;
  home: string;
  runId: string;
  isolation?: Isolation;
  base?: string;
  /** Lend a worktree or a copy the checkout's installed dependencies (default `reuse`). */
  dependencies?: DependencyMode;
}): Promise<Workspace> {
  return watchGit(await createWorkspace(options));
}

async function createWorkspace(options: {
  projectDir: string;
  home: string;
  runId: string;
  isolation?: Isolation;
  base?: string;
  dependencies?: DependencyMode;
}): Promise<Workspace> {
  if (options.isolation === 'copy') return createCopy(options);
  // Only a worktree needs git itself; the others need at most to know where the repository is.
  const marked = gitMarker(options.projectDir);
  const committed =
    marked === undefined || options.isolation === 'inplace' ? undefined : await committedRepo(options.projectDir);
  const isolation = options.isolation ?? (committed === undefined ? 'copy' : 'worktree');
  if (isolation === 'worktree') {
    if (committed === undefined) {
      throw new UsageError(
        'FLOW_WORKSPACE_NOT_GIT',
        `${options.projectDir} is not in a git repository with a commit, so it cannot have a worktree`,
        {
          hint: 'use `workspace.isolation: copy` (or `--isolation copy`) for a folder without git',
        },
      );
    }
    return createWorktree({
      repo: committed.repo,
      head: committed.head,
      projectDir: options.projectDir,
      home: options.home,
      runId: options.runId,
      ...defined({ base: options.base, dependencies: options.dependencies }),
    });
  }
  if (isolation === 'inplace')
    return lockInPlace({
      projectDir: options.projectDir,
      home: options.home,
      runId: options.runId,
      ...defined({ repo: marked }),
    });
  return createCopy(options);
}

/** The repository holding `dir` and its HEAD commit, when it has one (a worktree starts from one). */
async function committedRepo(dir: string): Promise<{ repo: GitRepo; head: string } | undefined> {
  const found = await GitRepo.discoverHead(dir);
  return found?.head === undefined ? undefined : { repo: found.repo, head: found.head };
}

/** Re-opens the workspace a run recorded, for a resume. */
export async function reopenWorkspace(record: WorkspaceRecord, home: string, runId: string): Promise<Workspace> {
  if (record.isolation === 'worktree') return watchGit(await reopenWorktree(record));
  if (record.isolation === 'inplace') return watchGit(await relockInPlace(record, home, runId));
  return watchGit(await reopenCopy(record));
}

/**
 * The workspace, finished only when its git metadata is as it was when this process took it
 * (and leads nowhere a work tree's never does): otherwise no git runs there — nothing is
 * committed — and the summary says so instead of suggesting a git command.
 */
async function watchGit(workspace: Workspace): Promise<Workspace> {
  // Its steps write these trees: neo's own programs are never found there (util/own-programs.ts).
  for (const tree of [workspace.record.root, workspace.record.path, workspace.record.projectDir]) distrustTree(tree);
  const git = await GitMetaWatch.open(workspace.record);
  return {
    ...workspace,
    async finish(outcome) {
      const tampered = git.tampered();
      if (tampered.length === 0) return workspace.finish(outcome);
      await workspace.release();
      const { record } = workspace;
      return {
        lines: [
          `workspace${record.isolation === 'inplace' ? ' (in place)' : ''}: ${record.path}`,
          ...tamperedLines(record.root, tampered),
        ],
      };
    },
  };
}

/** A sub-flow works in its parent's workspace and owns nothing of it. */
export function borrowedWorkspace(record: WorkspaceRecord): Workspace {
  return {
    record,
    warnings: [],
    async release() {},
    async finish() {
      return { lines: [] };
    },
  };
}
