import { join } from 'node:path';
import { checkId } from '../../util/ids.js';

/**
 * Where a worker keeps its clone of a dbos run with a git remote (engines/dbos/remote-workspace.ts):
 * the run's worktree is made from it, and `neo flow clean` removes it with the run. The private
 * index its step results are taken with lies beside it (`<clone>.index`).
 */
export function remoteCloneDir(home: string, runId: string): string {
  return join(home, 'remote-runs', checkId('run', runId));
}
