import { rm, stat } from 'node:fs/promises';
import { GitRepo } from '../../execution/index.js';
import type { WorkspaceRecord } from '../store/run-files.js';
import { worktreeRepo } from './worktree.js';

/** What removing a run's workspace would throw away, if anything (then only `--force` removes it). */
export interface WorkspaceHold {
  /** Why it is kept without `--force`: the work only it holds. */
  holds?: string;
  /** The folders removing it deletes (none for an in-place run: that is the checkout). */
  folders: string[];
}

/**
 * Judges a run's own workspace for removal. A worktree holds work when it has uncommitted changes
 * or its branch has commits no branch, tag or remote of the repository contains; one that is merged or never
 * changed anything holds none. A copy has no history to compare, so neo cannot tell whether its
 * changes were taken: it always counts as holding work.
 */
export async function judgeWorkspace(record: WorkspaceRecord): Promise<WorkspaceHold> {
  if (record.isolation === 'inplace') return { folders: [] };
  const exists = (await stat(record.root).catch(() => undefined)) !== undefined;
  if (record.isolation === 'copy')
    return exists
      ? { folders: [record.root], holds: 'a copy (neo cannot tell whether its changes were taken)' }
      : { folders: [] };
  const source = await sourceRepo(record);
  if (exists) {
    const tree = await worktreeRepo(record).catch(() => undefined);
    const dirty = tree === undefined ? '' : await tree.output(['status', '--porcelain']).catch(() => '');
    if (dirty !== '') return { folders: [record.root], holds: `uncommitted work in ${record.root}` };
  }
  if (source !== undefined && record.branch !== undefined && (await branchExists(source, record.branch))) {
    // Merged means reachable from HEAD or from a branch, tag or remote of the user's (another
    // run's branch does not count: it goes the same way).
    const args = ['rev-list', '--count', `refs/heads/${record.branch}`, '--not', 'HEAD'];
    const ahead = Number(
      await source.output([...args, '--exclude=neo/*', '--branches', '--tags', '--remotes']).catch(() => '1'),
    );
    if (ahead > 0)
      return {
        folders: exists ? [record.root] : [],
        holds: `${ahead} commit${ahead === 1 ? '' : 's'} on ${record.branch} not merged into any branch of ${record.repo}`,
      };
  }
  return { folders: exists ? [record.root] : [] };
}

/**
 * Removes a run's worktree (through git, so the repository forgets it) and its `neo/<runId>`
 * branch, or its copy. A worktree whose repository is gone is removed as a folder.
 */
export async function removeWorkspace(record: WorkspaceRecord): Promise<void> {
  if (record.isolation === 'inplace') return;
  if (record.isolation === 'worktree') {
    const source = await sourceRepo(record);
    if (source !== undefined) {
      await source.run(['worktree', 'remove', '--force', record.root]);
      await source.run(['worktree', 'prune']);
      if (record.branch !== undefined && (await branchExists(source, record.branch)))
        await source.run(['branch', '-D', record.branch]);
    }
  }
  await rm(record.root, { recursive: true, force: true });
}

async function sourceRepo(record: WorkspaceRecord): Promise<GitRepo | undefined> {
  return record.repo === undefined ? undefined : GitRepo.discover(record.repo).catch(() => undefined);
}

async function branchExists(repo: GitRepo, branch: string): Promise<boolean> {
  return (await repo.run(['rev-parse', '--verify', '--quiet', `refs/heads/${branch}`])).ok;
}
