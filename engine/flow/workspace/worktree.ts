import { access, realpath } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { GitRepo } from '../../execution/index.js';
import { errorMessage, NeoError, UsageError } from '../../util/errors.js';
import type { WorkspaceRecord } from '../store/run-files.js';
import { requireKept, type Workspace, type WorkspaceSummary } from './workspace.js';
import { worktreeStateLines } from './worktree-state.js';
import { checkId } from '../../util/ids.js';
import { mkdirPrivate } from '../../util/private-store.js';
import { defined } from '../../util/defined.js';
import { lendToWorktree, type DependencyMode } from './lend.js';
import { commitIdentity } from './commit-identity.js';
import { toolchainLoan } from './toolchains.js';

/**
 * A fresh git worktree on branch `neo/<runId>` under NEO_HOME/worktrees: the checkout is never
 * touched, and two runs never share one. It starts from a commit (HEAD or `workspace.base`), so
 * uncommitted changes in the project are reported as left out. Its git dir is recorded at
 * creation and every later call is pinned to it (execution/git-repo).
 */
export async function createWorktree(options: {
  repo: GitRepo;
  projectDir: string;
  home: string;
  runId: string;
  base?: string;
  /** HEAD's commit as the caller just read it: without a `base`, the worktree starts there. */
  head?: string;
  /** Lend it the checkout's installed dependencies (default), or not. */
  dependencies?: DependencyMode;
}): Promise<Workspace> {
  const source = options.repo;
  const repo = source.location.top;
  const projectDir = await realpath(options.projectDir);
  const rel = relative(repo, projectDir);
  const baseRef = options.base ?? 'HEAD';
  const baseCommit =
    options.base === undefined && options.head !== undefined
      ? options.head
      : await source.output(['rev-parse', '--verify', '--quiet', `${baseRef}^{commit}`]).catch(() => '');
  if (baseCommit === '') {
    throw new UsageError('FLOW_WORKSPACE_BASE', `workspace.base \`${baseRef}\` is not a commit in ${repo}`, {
      hint: 'name a branch, tag or commit that exists',
    });
  }
  const root = join(options.home, 'worktrees', checkId('run', options.runId));
  const branch = `neo/${options.runId}`;
  await mkdirPrivate(join(options.home, 'worktrees'));
  await source.output(['worktree', 'add', '--quiet', '-b', branch, root, baseCommit]);
  const path = join(root, rel);
  try {
    await access(path);
  } catch {
    // Nothing ran: the worktree and branch made for it go too, so a refused run leaves nothing behind.
    await source.run(['worktree', 'remove', '--force', root]);
    await source.run(['branch', '-D', branch]);
    throw new UsageError(
      'FLOW_WORKSPACE_UNCOMMITTED',
      `the project folder ${rel || '.'} is not in commit ${baseCommit.slice(0, 10)}, so the worktree has no copy of it`,
      {
        hint: `commit it (git -C ${repo} add ${rel} && git -C ${repo} commit), or run with \`--isolation copy\` (or set \`workspace.isolation: copy\`)`,
      },
    );
  }
  const created = await GitRepo.discover(root);
  if (created === undefined) throw new NeoError('FLOW_WORKSPACE_BASE', `git created no work tree at ${root}`);
  const warnings: string[] = [];
  // `.neo/` is read from the checkout (definitions pinned at the start), never from the worktree:
  // right after `neo init` it is uncommitted, and that leaves nothing out of the run.
  const dirty = await source.output(['status', '--porcelain', '--', rel || '.', ':(top,exclude).neo']).catch(() => '');
  if (dirty)
    warnings.push(
      `uncommitted changes in ${rel || 'the project'} are not in the worktree (it starts from ${baseRef} = ${baseCommit.slice(0, 10)})`,
    );
  const { gitDir, commonDir } = created.location;
  const lending =
    options.dependencies === 'none'
      ? { lent: [], warnings: [] }
      : await lendToWorktree({ source, worktree: created, home: options.home });
  warnings.push(...lending.warnings);
  const record: WorkspaceRecord = {
    isolation: 'worktree',
    path,
    root,
    projectDir,
    repo,
    branch,
    baseCommit,
    gitDir,
    commonDir,
    ...(lending.lent.length === 0 ? {} : { dependencies: lending.lent }),
    ...defined({ toolchains: options.dependencies === 'none' ? undefined : toolchainLoan([repo, projectDir]) }),
  };
  return worktreeWorkspace(record, warnings);
}

/** The worktree of a run being resumed. */
export async function reopenWorktree(record: WorkspaceRecord): Promise<Workspace> {
  await requireKept(record, 'worktree');
  return worktreeWorkspace(record, []);
}

/** The worktree's repository, pinned to the git dir recorded at creation. */
export async function worktreeRepo(record: WorkspaceRecord): Promise<GitRepo> {
  if (record.gitDir !== undefined && record.commonDir !== undefined)
    return GitRepo.pinned({ top: await realpath(record.root), gitDir: record.gitDir, commonDir: record.commonDir });
  // A run recorded before git dirs were: found now, as the run left it.
  const found = await GitRepo.discover(record.root);
  if (found === undefined) throw new NeoError('GIT_DIR_CHANGED', `${record.root} is no longer a git work tree`);
  return found;
}

function worktreeWorkspace(record: WorkspaceRecord, warnings: string[]): Workspace {
  return {
    record,
    warnings,
    async release() {},
    async finish(outcome): Promise<WorkspaceSummary> {
      try {
        return await summarize(record, await worktreeRepo(record), outcome);
      } catch (error) {
        // A .git rewritten under the run (GIT_DIR_CHANGED): nothing is committed through it.
        return { lines: [`workspace: ${record.path}`, `not committed: ${errorMessage(error)}`] };
      }
    },
  };
}

/** Commits a succeeded run's changes (as the user's git identity: commit-identity.ts), then says what the branch holds. */
async function summarize(
  record: WorkspaceRecord,
  repo: GitRepo,
  { status, flow, runId }: { status: string; flow: string; runId: string },
): Promise<WorkspaceSummary> {
  const dirty = await repo.output(['status', '--porcelain']);
  const source = record.repo === undefined ? undefined : await GitRepo.discover(record.repo).catch(() => undefined);
  let commit: string | undefined;
  if (status === 'succeeded' && dirty) {
    await repo.output(['add', '-A']);
    const who = await commitIdentity(source);
    await repo.output([
      '-c',
      `user.name=${who.name}`,
      '-c',
      `user.email=${who.email}`,
      'commit',
      '--quiet',
      '--no-verify',
      '-m',
      `neo: ${flow} (${runId})`,
    ]);
    commit = await repo.output(['rev-parse', '--short', 'HEAD']);
  }
  const count = Number(await repo.output(['rev-list', '--count', `${record.baseCommit}..HEAD`]).catch(() => '0'));
  const changed = await repo.output(['diff', '--name-only', '-z', record.baseCommit ?? 'HEAD']).catch(() => '');
  // New files are changes too: `git diff` against a commit does not list untracked ones.
  const added = await repo.output(['ls-files', '--others', '--exclude-standard', '-z']).catch(() => '');
  const changedFiles = `${changed}\0${added}`.split('\0').filter((path) => path !== '').length;
  const lines = [
    `workspace: ${record.path}`,
    `branch: ${record.branch} (${count} commit${count === 1 ? '' : 's'} on ${record.baseCommit?.slice(0, 10)}, ${changedFiles} file${changedFiles === 1 ? '' : 's'} changed)`,
  ];
  const merged =
    count > 0 &&
    source !== undefined &&
    (await source.run(['merge-base', '--is-ancestor', record.branch ?? 'HEAD', 'HEAD'])).ok;
  const left = commit === undefined && dirty !== '';
  lines.push(...worktreeStateLines({ status, runId, dirty: left, commits: count, merged, ...record }));
  return { lines, changedFiles, ...defined({ commit }) };
}
