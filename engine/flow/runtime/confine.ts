import type { Confinement, SandboxBind } from '../../execution/index.js';
import type { SandboxSetting } from '../core/plan.js';
import type { WorkspaceRecord } from '../store/run-files.js';
import { gitLayout } from '../workspace/git-meta.js';
import { defined } from '../../util/defined.js';

/** What a run's sandboxed processes are confined to: its workspace and its repository's metadata. */
export interface RunSite {
  workspace: WorkspaceRecord;
  /** NEO_HOME: hidden whole (the run's own folder too: nothing a step writes is read back as the run's truth). */
  home: string;
}

/**
 * The confinement of one process of a run: the workspace writable (or `tree`, a gate's fresh
 * copy, shown at the workspace's path) and its git metadata read-only wherever it lies — the
 * `.git` entry at the workspace's root, its git dir and the repository's common dir (a worktree's
 * live with its repository, perhaps in the hidden home, and git needs them readable): what git
 * runs from there is never a confined process's to set. Nothing of NEO_HOME is shown but what
 * `binds` names (a run step's own output folder).
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
  const git = gitLayout(workspace);
  return {
    workspace: process.tree ?? workspace.root,
    ...(process.tree === undefined ? {} : { workspaceAt: workspace.root }),
    cwd: process.cwd,
    neoHome: site.home,
    readable: [
      ...new Set([git.dotGit, git.gitDir, git.commonDir].filter((path): path is string => path !== undefined)),
    ],
    ...defined({ configHomes: process.configHomes, binds: process.binds }),
    network: setting.network,
    env: process.env,
    ...defined({ timeoutMs: process.timeoutMs }),
  };
}
