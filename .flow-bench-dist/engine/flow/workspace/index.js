/** Workspaces: where a run's steps work (worktree, in place, or a copy). */
import { stat } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { NeoError } from '../../util/errors.js';
import { createCopy, reopenCopy } from './copy.js';
import { gitRepoRoot } from './git.js';
import { lockInPlace, relockInPlace } from './inplace.js';
import { createWorktree, reopenWorktree } from './worktree.js';
/** Prepares a new run's workspace; worktree is the default in a git repository, copy elsewhere. */
export async function prepareWorkspace(options) {
    if (options.isolation === 'copy')
        return createCopy(options);
    // Only a worktree needs git itself; the others need at most to know where the repository is.
    const marked = await gitMarker(options.projectDir);
    const repo = marked === undefined ? undefined : options.isolation === 'inplace' ? marked : await gitRepoRoot(options.projectDir);
    const isolation = options.isolation ?? (repo === undefined ? 'copy' : 'worktree');
    if (isolation === 'worktree') {
        if (repo === undefined) {
            throw new NeoError('FLOW_WORKSPACE_NOT_GIT', `${options.projectDir} is not in a git repository with a commit, so it cannot have a worktree`, {
                hint: 'use `workspace.isolation: copy` (or `--isolation copy`) for a folder without git',
            });
        }
        return createWorktree({ repo, projectDir: options.projectDir, home: options.home, runId: options.runId, ...(options.base === undefined ? {} : { base: options.base }) });
    }
    if (isolation === 'inplace')
        return lockInPlace({ projectDir: options.projectDir, home: options.home, runId: options.runId, ...(repo === undefined ? {} : { repo }) });
    return createCopy(options);
}
/** The nearest folder at or above `dir` holding a `.git`, without running git. */
async function gitMarker(dir) {
    for (let at = resolve(dir);; at = dirname(at)) {
        try {
            await stat(join(at, '.git'));
            return at;
        }
        catch {
            if (dirname(at) === at)
                return undefined;
        }
    }
}
/** Re-opens the workspace a run recorded, for a resume. */
export function reopenWorkspace(record, home, runId) {
    if (record.isolation === 'worktree')
        return reopenWorktree(record);
    if (record.isolation === 'inplace')
        return relockInPlace(record, home, runId);
    return reopenCopy(record);
}
/** A sub-flow works in its parent's workspace and owns nothing of it. */
export function borrowedWorkspace(record) {
    return { record, warnings: [], async release() { }, async finish() { return { lines: [] }; } };
}
