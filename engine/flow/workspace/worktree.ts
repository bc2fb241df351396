import { access, realpath } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';
import { GitRepo, gitFailure } from '../../execution/index.js';
import { errorMessage, NeoError, UsageError } from '../../util/errors.js';
import type { WorkspaceRecord } from '../store/run-files.js';
import { requireKept, type Workspace, type WorkspaceSummary } from './workspace.js';
import { worktreeStateLines } from './worktree-state.js';
import { checkId } from '../../util/ids.js';
import { mkdirPrivate } from '../../util/private-store.js';
import { defined } from '../../util/defined.js';
import { lendableFolders, lendToWorktree, type DependencyMode } from './lend.js';
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
  // What the checkout has that the worktree will not (the warning below) and which of its
  // dependency folders can be lent are read from the checkout while git adds the worktree: the
  // three are independent. `worktree add` is the longest and is started first (each spawn holds
  // the thread while it forks). `.neo/` is read from the checkout (definitions pinned at the
  // start), never from the worktree: right after `neo init` it is uncommitted, and that leaves
  // nothing out of the run.
  const args = ['worktree', 'add', '--quiet', '-b', branch, root, baseCommit];
  const adding = source.run(args);
  // The project's own `.neo/` (a package's, in a monorepo) is read from the checkout: not a change left out.
  const ownDefinitions = `:(top,exclude)${rel === '' ? '' : `${rel.split(sep).join('/')}/`}.neo`;
  const dirtyCheck = source.output(['status', '--porcelain', '--', rel || '.', ownDefinitions]).catch(() => '');
  const lendable =
    options.dependencies === 'none' ? Promise.resolve([]) : lendableFolders(repo, source, [options.home]);
  const [added, dirty, folders] = await Promise.allSettled([adding, dirtyCheck, lendable]);
  if (added.status === 'rejected') throw added.reason;
  if (!added.value.ok) throw new NeoError('GIT_FAILED', `${gitFailure(args, added.value)} (in ${repo})`);
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
  const created = await source.linked(root);
  const warnings: string[] = [];
  if (dirty.status === 'fulfilled' && dirty.value)
    warnings.push(
      `uncommitted changes in ${rel || 'the project'} are not in the worktree (it starts from ${baseRef} = ${baseCommit.slice(0, 10)})`,
    );
  if (folders.status === 'rejected') throw folders.reason;
  const { gitDir, commonDir } = created.location;
  const lending = await lendToWorktree({ source, worktree: created, home: options.home, folders: folders.value });
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
  return worktreeWorkspace(record, warnings, { worktree: created, source });
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

/** The repositories a run's finish uses: the worktree's and its checkout's, when this process made the worktree. */
interface Repos {
  worktree: GitRepo;
  source: GitRepo;
}

function worktreeWorkspace(record: WorkspaceRecord, warnings: string[], repos?: Repos): Workspace {
  return {
    record,
    warnings,
    async release() {},
    async finish(outcome): Promise<WorkspaceSummary> {
      try {
        const repo = repos?.worktree ?? (await worktreeRepo(record));
        const source = repos === undefined ? checkoutOf(record) : async () => repos.source;
        return await summarize(record, repo, source, outcome);
      } catch (error) {
        // A .git rewritten under the run (GIT_DIR_CHANGED): nothing is committed through it.
        return { lines: [`workspace: ${record.path}`, `not committed: ${errorMessage(error)}`] };
      }
    },
  };
}

/** The checkout a resumed run's worktree came from, found when the finish first needs it. */
function checkoutOf(record: WorkspaceRecord): () => Promise<GitRepo | undefined> {
  let found: Promise<GitRepo | undefined> | undefined;
  return () =>
    (found ??=
      record.repo === undefined ? Promise.resolve(undefined) : GitRepo.discover(record.repo).catch(() => undefined));
}

/**
 * Commits a succeeded run's changes (as the user's git identity: commit-identity.ts), then says
 * what the branch holds. One `status --porcelain=v2 --branch` answers the common case: HEAD
 * still at the base and nothing changed is no commit and no file; otherwise the branch's
 * commits and changed files are counted by the queries that define them.
 */
async function summarize(
  record: WorkspaceRecord,
  repo: GitRepo,
  source: () => Promise<GitRepo | undefined>,
  { status, flow, runId }: { status: string; flow: string; runId: string },
): Promise<WorkspaceSummary> {
  const state = (await repo.output(['status', '--porcelain=v2', '--branch'])).split('\n');
  const head = state.find((line) => line.startsWith('# branch.oid '))?.slice('# branch.oid '.length);
  const dirty = state.some((line) => line !== '' && !line.startsWith('# '));
  let commit: string | undefined;
  if (status === 'succeeded' && dirty) {
    await repo.output(['add', '-A']);
    const who = await commitIdentity(await source());
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
  const atBase = head !== undefined && head === record.baseCommit;
  const untouched = commit === undefined && !dirty && atBase;
  // From the base, this finish's commit is the branch's only one.
  const known = atBase ? (commit === undefined ? 0 : 1) : undefined;
  // Untracked files are left only where the status listed changes and nothing committed them:
  // after `add -A` and the commit, or a status without a line, there are none to list.
  const left = commit === undefined && dirty;
  const { count, changedFiles } = untouched
    ? { count: 0, changedFiles: 0 }
    : await branchChanges(repo, record, { untracked: left, ...defined({ count: known }) });
  const lines = [
    `workspace: ${record.path}`,
    `branch: ${record.branch} (${count} commit${count === 1 ? '' : 's'} on ${record.baseCommit?.slice(0, 10)}, ${changedFiles} file${changedFiles === 1 ? '' : 's'} changed)`,
  ];
  const from = count > 0 ? await source() : undefined;
  const merged =
    from !== undefined && (await from.run(['merge-base', '--is-ancestor', record.branch ?? 'HEAD', 'HEAD'])).ok;
  lines.push(...worktreeStateLines({ status, runId, dirty: left, commits: count, merged, ...record }));
  return { lines, changedFiles, ...defined({ commit }) };
}

/** The branch's commits on its base and the files they and the work tree change. */
async function branchChanges(
  repo: GitRepo,
  record: WorkspaceRecord,
  known: {
    /** The count when the caller knows it (HEAD was at the base before the finish's commit). */
    count?: number;
    /** Whether the work tree may hold untracked files (the status listed some change nothing committed). */
    untracked: boolean;
  },
): Promise<{ count: number; changedFiles: number }> {
  const count =
    known.count ?? Number(await repo.output(['rev-list', '--count', `${record.baseCommit}..HEAD`]).catch(() => '0'));
  const changed = await repo.output(['diff', '--name-only', '-z', record.baseCommit ?? 'HEAD']).catch(() => '');
  // New files are changes too: `git diff` against a commit does not list untracked ones.
  const added = known.untracked
    ? await repo.output(['ls-files', '--others', '--exclude-standard', '-z']).catch(() => '')
    : '';
  return { count, changedFiles: `${changed}\0${added}`.split('\0').filter((path) => path !== '').length };
}
