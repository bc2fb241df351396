import type { Confinement, SandboxBind } from '../../execution/index.js';
import type { SandboxSetting } from '../core/plan.js';
import type { WorkspaceRecord } from '../store/run-files.js';
import { gitReadOnly } from '../workspace/git-meta.js';
import { join } from 'node:path';
import { defined } from '../../util/defined.js';

/** What a run's sandboxed processes are confined to: its workspace and its repository's metadata. */
export interface RunSite {
  workspace: WorkspaceRecord;
  /** NEO_HOME: hidden whole (the run's own folder too: nothing a step writes is read back as the run's truth). */
  home: string;
}

/**
 * The confinement of one process of a run: the workspace writable (or `tree`, a gate's fresh
 * copy, shown at the workspace's path) and its git metadata read-only (`gitReadOnly`: the
 * `.git` entry at the workspace's root and its git dirs; a worktree's live with its repository,
 * perhaps in the hidden home, and git needs them readable): what git runs from there is never a
 * confined process's to set. The checkout's dependency folders lent to the workspace (and what
 * their links need, a virtualenv's base Python) are shown read-only where they are, so the
 * workspace's mirror of them works, and nothing confined writes the checkout's through it.
 * Nothing of NEO_HOME is shown but what `binds` names (a run step's own output folder).
 */
export function runConfinement(
  site: RunSite,
  setting: SandboxSetting,
  process: {
    cwd: string;
    env: NodeJS.ProcessEnv;
    timeoutMs?: number;
    tree?: string;
    /** Further binds on top (a run step's output folder; a gate's protected paths and dependency folders, read-only). */
    binds?: readonly SandboxBind[];
  },
): Confinement {
  const { workspace } = site;
  return {
    workspace: process.tree ?? workspace.root,
    ...(process.tree === undefined ? {} : { workspaceAt: workspace.root }),
    cwd: process.cwd,
    neoHome: site.home,
    hidden: checkoutHidden(workspace),
    readable: [...gitReadOnly(workspace), ...projectDefinitionsReadOnly(workspace), ...lentReadOnly(workspace)],
    ...defined({ binds: process.binds }),
    network: setting.network,
    env: process.env,
    ...defined({ timeoutMs: process.timeoutMs }),
  };
}

/**
 * A worktree's or copy's checkout is hidden from the run's confined processes like the home: its
 * files git ignores (a `.env`, credentials, local notes) are not in the workspace and were readable
 * at the checkout's own path wherever it lay outside the home and /tmp (a devcontainer's
 * `/workspaces/<project>`, a CI runner's folder), and an editable install naming the checkout's
 * sources made a gate test the checkout's code instead of the agent's. What the workspace needs of
 * it is shown again by `readable`: its git metadata and the dependency folders lent to it.
 */
export function checkoutHidden(workspace: WorkspaceRecord): string[] {
  if (workspace.isolation === 'inplace') return [];
  return [...new Set([workspace.projectDir, ...(workspace.repo === undefined ? [] : [workspace.repo])])];
}

/**
 * In `inplace` isolation the workspace is the checkout whose project layer neo loads, trusted
 * once `neo trust` named the project: its `.neo/` (neo.yaml, `.env`, flows, personas, backends and
 * capabilities, which name programs) and `.claude/agents/` are read-only to every confined process
 * of the run. A backend file a step wrote there ran its program unconfined, with neo's whole
 * environment, at the user's next `neo backends list` (its `--version` probe), and a neo.yaml sent
 * the next run's key where the step said. Missing folders are left alone (a bind shows what is).
 */
export function projectDefinitionsReadOnly(workspace: WorkspaceRecord): string[] {
  if (workspace.isolation !== 'inplace') return [];
  const tops = new Set([workspace.root, ...(workspace.repo === undefined ? [] : [workspace.repo])]);
  return [...tops].flatMap((top) => [join(top, '.neo'), join(top, '.claude', 'agents')]);
}

/** The host folders a workspace's lent dependencies lead to, and its lent toolchains (its record, written by neo: never read from the workspace). */
export function lentReadOnly(workspace: WorkspaceRecord): string[] {
  return [
    ...(workspace.dependencies ?? []).flatMap((folder) => [folder.from, ...(folder.shows ?? [])]),
    ...(workspace.toolchains?.readOnly ?? []),
  ];
}

/** What a confined process of the workspace is told of its lent toolchains (GOMODCACHE, CARGO_HOME, offline). */
export function lentEnv(workspace: WorkspaceRecord): Record<string, string> {
  return { ...workspace.toolchains?.env };
}
