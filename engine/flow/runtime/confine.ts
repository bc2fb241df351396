import { join } from 'node:path';
import type { Confinement, SandboxBind } from '../../execution/index.js';
import type { SandboxSetting } from '../core/plan.js';
import type { WorkspaceRecord } from '../store/run-files.js';
import { defined } from '../../util/defined.js';

/** What a run's sandboxed processes are confined to: its workspace and its repository's metadata. */
export interface RunSite {
  workspace: WorkspaceRecord;
  /** NEO_HOME: hidden whole (the run's own folder too: nothing a step writes is read back as the run's truth). */
  home: string;
}

/**
 * The confinement of one process of a run: the workspace writable (or `tree`, a gate's fresh
 * copy, shown at the workspace's path), the repository's git metadata readable (a worktree's
 * lives with its repository, perhaps in the hidden home) and, where the git dir lies inside the
 * workspace, its config and hooks read-only: what git runs from there is never the agent's to
 * set. Nothing of NEO_HOME is shown but what `binds` names (a run step's own output folder).
 */
export function runConfinement(
  site: RunSite,
  setting: SandboxSetting,
  process: {
    cwd: string;
    env: NodeJS.ProcessEnv;
    timeoutMs?: number;
    tree?: string;
    configHomes?: readonly string[];
    /** Further binds on top (a run step's output folder; a gate's protected paths and dependency folders, read-only). */
    binds?: readonly SandboxBind[];
  },
): Confinement {
  const { workspace } = site;
  const gitDir = workspace.gitDir ?? join(workspace.root, '.git');
  return {
    workspace: process.tree ?? workspace.root,
    ...(process.tree === undefined ? {} : { workspaceAt: workspace.root }),
    cwd: process.cwd,
    neoHome: site.home,
    readable: [
      ...(workspace.commonDir === undefined ? [] : [workspace.commonDir]),
      join(gitDir, 'config'),
      join(gitDir, 'hooks'),
    ],
    ...defined({ configHomes: process.configHomes, binds: process.binds }),
    network: setting.network,
    env: process.env,
    ...defined({ timeoutMs: process.timeoutMs }),
  };
}
