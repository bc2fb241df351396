import { access, mkdir, realpath } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { NeoError } from '../../util/errors.js';
import type { WorkspaceRecord } from '../store/run-files.js';
import { git, gitMaybe } from './git.js';
import type { Workspace, WorkspaceSummary } from './workspace.js';

/**
 * A fresh git worktree on branch `neo/<runId>` under NEO_HOME/worktrees: the checkout is never
 * touched, and two runs never share one. It starts from a commit (HEAD or `workspace.base`), so
 * uncommitted changes in the project are reported as left out.
 */
export async function createWorktree(options: {
  repo: string;
  projectDir: string;
  home: string;
  runId: string;
  base?: string;
}): Promise<Workspace> {
  const repo = await realpath(options.repo);
  const projectDir = await realpath(options.projectDir);
  const rel = relative(repo, projectDir);
  const baseRef = options.base ?? 'HEAD';
  const baseCommit = await gitMaybe(repo, ['rev-parse', '--verify', '--quiet', `${baseRef}^{commit}`]);
  if (baseCommit === undefined || baseCommit === '') {
    throw new NeoError('FLOW_WORKSPACE_BASE', `workspace.base \`${baseRef}\` is not a commit in ${repo}`, {
      hint: 'name a branch, tag or commit that exists',
    });
  }
  const root = join(options.home, 'worktrees', options.runId);
  const branch = `neo/${options.runId}`;
  await mkdir(join(options.home, 'worktrees'), { recursive: true });
  await git(repo, ['worktree', 'add', '--quiet', '-b', branch, root, baseCommit]);
  const path = join(root, rel);
  try {
    await access(path);
  } catch {
    throw new NeoError(
      'FLOW_WORKSPACE_UNCOMMITTED',
      `the project folder ${rel || '.'} is not in commit ${baseCommit.slice(0, 10)}, so the worktree has no copy of it`,
      {
        hint: 'commit it, or run with `--isolation copy` (or set `workspace.isolation: copy`)',
      },
    );
  }
  const warnings: string[] = [];
  const dirty = await gitMaybe(repo, ['status', '--porcelain', '--', rel || '.']);
  if (dirty)
    warnings.push(
      `uncommitted changes in ${rel || 'the project'} are not in the worktree (it starts from ${baseRef} = ${baseCommit.slice(0, 10)})`,
    );
  const record: WorkspaceRecord = { isolation: 'worktree', path, root, projectDir, repo, branch, baseCommit };
  return worktreeWorkspace(record, warnings);
}

/** The worktree of a run being resumed. */
export async function reopenWorktree(record: WorkspaceRecord): Promise<Workspace> {
  try {
    await access(record.path);
  } catch {
    throw new NeoError('FLOW_WORKSPACE_MISSING', `the run's worktree ${record.root} is gone`, {
      hint: 'it cannot be resumed; start a new run',
    });
  }
  return worktreeWorkspace(record, []);
}

function worktreeWorkspace(record: WorkspaceRecord, warnings: string[]): Workspace {
  return {
    record,
    warnings,
    async release() {},
    async finish({ status, flow, runId }): Promise<WorkspaceSummary> {
      const dirty = await gitMaybe(record.root, ['status', '--porcelain']);
      let commit: string | undefined;
      if (status === 'succeeded' && dirty) {
        await git(record.root, ['add', '-A']);
        await git(record.root, [
          '-c',
          'user.name=neo',
          '-c',
          'user.email=neo@localhost',
          'commit',
          '--quiet',
          '--no-verify',
          '-m',
          `neo: ${flow} (${runId})`,
        ]);
        commit = await gitMaybe(record.root, ['rev-parse', '--short', 'HEAD']);
      }
      const count = Number((await gitMaybe(record.root, ['rev-list', '--count', `${record.baseCommit}..HEAD`])) ?? '0');
      const changed = await gitMaybe(record.root, ['diff', '--name-only', record.baseCommit ?? 'HEAD']);
      const changedFiles = changed === undefined || changed === '' ? 0 : changed.split('\n').length;
      const lines = [
        `workspace: ${record.path}`,
        `branch: ${record.branch} (${count} commit${count === 1 ? '' : 's'} on ${record.baseCommit?.slice(0, 10)}, ${changedFiles} file${changedFiles === 1 ? '' : 's'} changed)`,
      ];
      const merged =
        count > 0 &&
        (await gitMaybe(record.repo ?? record.root, [
          'merge-base',
          '--is-ancestor',
          record.branch ?? 'HEAD',
          'HEAD',
        ])) !== undefined;
      if (merged) lines.push(`already merged into ${record.repo}`);
      else if (status === 'succeeded' && count > 0)
        lines.push(`merge it: git -C ${record.repo} merge ${record.branch}`);
      if (status !== 'succeeded' && dirty) lines.push(`uncommitted work is left in ${record.root}`);
      if (count === 0 && changedFiles === 0)
        lines.push(
          'nothing changed; remove it with: git -C ' +
            `${record.repo} worktree remove ${record.root} && git -C ${record.repo} branch -D ${record.branch}`,
        );
      return { lines, changedFiles, ...(commit === undefined ? {} : { commit }) };
    },
  };
}
