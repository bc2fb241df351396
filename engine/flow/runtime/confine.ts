import { join } from 'node:path';
import type { Confinement, SandboxBind } from '../../execution/index.js';
import type { SandboxSetting } from '../core/plan.js';
import type { WorkspaceRecord } from '../store/run-files.js';
import { defined } from '../../util/defined.js';

/** What a run's sandboxed processes are confined to: its workspace, its own folder, its repository's metadata. */
export interface RunSite {
  workspace: WorkspaceRecord;
  /** NEO_HOME. */
  home: string;
  /** The run's folder (its outputs): the one part of NEO_HOME a sandboxed process sees. */
  runDir: string;
}

/**
 * The confinement of one process of a run: the workspace writable (or `tree`, a gate's fresh
 * copy, shown at the workspace's path), the repository's git metadata readable (a worktree's
 * lives with its repository, perhaps in the hidden home) and, where the git dir lies inside the
 * workspace, its config and hooks read-only: what git runs from there is never the agent's to set.
 */
export function runConfinement(
  site: RunSite,
  setting: SandboxSetting,
  process: {
    cwd: string;
    env: NodeJS.ProcessEnv;
    timeoutMs?: number;
    tree?: string;
    /** Further binds on top (a gate's protected paths and dependency folders, read-only). */
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
    runDir: site.runDir,
    readable: [
      ...(workspace.commonDir === undefined ? [] : [workspace.commonDir]),
      join(gitDir, 'config'),
      join(gitDir, 'hooks'),
    ],
    ...defined({ binds: process.binds }),
    network: setting.network,
    env: process.env,
    ...defined({ timeoutMs: process.timeoutMs }),
  };
}
