import { resolve } from 'node:path';
import { GitRepo, gitMarker } from '../../execution/index.js';
import { lendableFolders, type DependencyMode } from './lend.js';
import type { Isolation } from './workspace.js';
import { toolchainLoan } from './toolchains.js';

/** What a run will do with the checkout's installed dependencies, said before it runs (`--dry-run`). */
export interface DependencyPlan {
  mode: DependencyMode | 'inplace';
  /** The checkout's folders a worktree or copy will be lent (relative to `from`). */
  folders: string[];
  /** Where they are: the repository's top (a worktree), the project folder (a copy). */
  from: string;
  /** One line for the user. */
  line: string;
}

const INSTALL_HINT = 'install them in a run step before the agent step (e.g. `npm ci`, with `network: true`)';

/**
 * The dependency folders a run of the project at `projectDir` will be lent, found by the rule
 * the run itself uses (lend.ts), without making anything.
 */
export async function planDependencies(options: {
  projectDir: string;
  home: string;
  isolation?: Isolation;
  mode?: DependencyMode;
}): Promise<DependencyPlan> {
  const mode = options.mode ?? 'reuse';
  const marked = gitMarker(options.projectDir) !== undefined;
  const isolation = options.isolation ?? (marked ? 'worktree' : 'copy');
  const repo = isolation === 'worktree' && marked ? await GitRepo.discover(options.projectDir) : undefined;
  const from = repo?.location.top ?? resolve(options.projectDir);
  const lent = mode === 'none' ? undefined : toolchainLoan([from, resolve(options.projectDir)]);
  const toolchains =
    lent === undefined ? '' : `; ${lent.ecosystems.join(' and ')}: ${lent.readOnly.join(', ')} lent read-only, offline`;
  if (isolation === 'inplace')
    return { mode: 'inplace', folders: [], from, line: `dependencies: the checkout's own (in place)${toolchains}` };
  if (mode === 'none')
    return {
      mode,
      folders: [],
      from,
      line: `dependencies: none lent (workspace.dependencies: none): ${INSTALL_HINT}`,
    };
  const folders = await lendableFolders(from, repo, [resolve(options.home)]);
  const where = isolation === 'worktree' ? 'the worktree' : 'the copy';
  return {
    mode,
    folders,
    from,
    line:
      folders.length === 0 && lent !== undefined
        ? `dependencies (workspace.dependencies: reuse)${toolchains}`
        : (folders.length === 0
            ? `dependencies: none installed in ${from} to lend (workspace.dependencies: reuse): ${INSTALL_HINT}`
            : `dependencies: ${folders.join(', ')} lent from ${from} (workspace.dependencies: reuse): ${where}'s links to them, read-only in bwrap`) +
          toolchains,
  };
}
