/** What a run's worktree holds when the run settles, as git reports it. */
export interface WorktreeFacts {
  status: string;
  runId: string;
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
 * What the summary says about the worktree's state: exactly one line of merged, left
 * uncommitted, to merge, commits kept, or nothing changed, then how to remove it (`neo flow
 * clean`, with `--force` where the worktree holds work nowhere else). A failed step that only
 * created new files is uncommitted work, never "nothing changed".
 */
export function worktreeStateLines(facts: WorktreeFacts): string[] {
  const { repo, root, branch, runId } = facts;
  const clean = `neo flow clean ${runId}`;
  if (facts.dirty)
    return [`uncommitted work is left in ${root}`, `remove it (its uncommitted work too): ${clean} --force`];
  if (facts.commits > 0) {
    if (facts.merged) return [`already merged into ${repo}`, `remove it: ${clean}`];
    const removal = `remove it (its commits too): ${clean} --force`;
    return facts.status === 'succeeded'
      ? [`merge it: git -C ${repo} merge ${branch}`, removal]
      : [
          `the branch keeps ${facts.commits} commit${facts.commits === 1 ? '' : 's'} of this run; inspect it with: git -C ${repo} log ${branch}`,
          removal,
        ];
  }
  return [`nothing changed; remove it with: ${clean}`];
}
