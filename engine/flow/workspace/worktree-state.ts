/** What a run's worktree holds when the run settles, as git reports it. */
export interface WorktreeFacts {
  status: string;
  /** Changes not committed: modified, deleted or new (untracked, not ignored) files. */
  dirty: boolean;
  /** Commits on the run's branch since its base. */
  commits: number;
  /** The branch is already in the project's HEAD. */
  merged: boolean;
  repo?: string;
  root: string;
  branch?: string;
}

/**
 * The one line the summary says about the worktree's state: exactly one of merged, left
 * uncommitted, to merge, commits kept, or nothing changed (with how to remove it). A failed step
 * that only created new files is uncommitted work, never "nothing changed".
 */
export function worktreeStateLine(facts: WorktreeFacts): string {
  const { repo, root, branch } = facts;
  if (facts.dirty) return `uncommitted work is left in ${root}`;
  if (facts.commits > 0) {
    if (facts.merged) return `already merged into ${repo}`;
    return facts.status === 'succeeded'
      ? `merge it: git -C ${repo} merge ${branch}`
      : `the branch keeps ${facts.commits} commit${facts.commits === 1 ? '' : 's'} of this run; inspect it with: git -C ${repo} log ${branch}`;
  }
  return `nothing changed; remove it with: git -C ${repo} worktree remove ${root} && git -C ${repo} branch -D ${branch}`;
}
