import type { Confinement, SandboxBind } from '../../execution/index.js';
import type { SandboxSetting } from '../core/plan.js';
import type { WorkspaceRecord } from '../store/run-files.js';
import { gitReadOnly } from '../workspace/git-meta.js';
import { lstatSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { NeoError } from '../../util/errors.js';
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
 * the next run's key where the step said. The whole `.claude/` is bound, not its `agents/`: a
 * folder above a mount can be renamed, and a step had moved `.claude` aside and made a new
 * `.claude/agents/` in its place (a folder at the root that is itself a mount cannot be moved).
 * The cost: nothing confined writes a checkout's `.claude/` in an inplace run (an agent CLI's own
 * state lives in its session's home, agent-home.ts; a worktree run's `.claude/` stays writable).
 *
 * A bind shows only what is, so a project without these folders had a step create them, and
 * with them a layer neo loaded as the trusted project's own. neo makes each one (empty) before
 * the confined process starts (`ensureFolder`): the bind then always holds, whether the project
 * was trusted before the run or after it. Not a trust-time record of the absence: a `git
 * checkout` of a branch without `.neo/` removes it after `neo trust`, and the run must hold then
 * too. The cost is an empty folder in the checkout, which git does not see.
 */
export function projectDefinitionsReadOnly(workspace: WorkspaceRecord): string[] {
  if (workspace.isolation !== 'inplace') return [];
  const tops = new Set([workspace.root, ...(workspace.repo === undefined ? [] : [workspace.repo])]);
  const folders = [...tops].flatMap((top) => [join(top, '.neo'), join(top, '.claude')]);
  for (const folder of folders) ensureFolder(folder);
  return folders;
}

/**
 * The folder, made when missing. Anything else in its place leaves nothing a bind can hold: a
 * file or a dangling link (a step makes its target real), or a link at all (the bind lands on
 * its target, and the link itself, in the writable checkout, is the step's to replace with a
 * folder of its own). The confined process is refused, before it starts.
 */
function ensureFolder(folder: string): void {
  try {
    mkdirSync(folder, { recursive: true });
  } catch {
    // Told below: whatever is there, it is not a folder neo can bind.
  }
  if (isFolder(folder)) return;
  throw new NeoError(
    'FLOW_PROJECT_LAYER_UNBOUND',
    `${folder} is not a folder, so it cannot be shown read-only to the run's confined processes, and what a step put there would be loaded as the project's own definitions`,
    { hint: `make ${folder} a folder (not a link or a file), or run with \`workspace.isolation: worktree\`` },
  );
}

function isFolder(path: string): boolean {
  try {
    return lstatSync(path, { throwIfNoEntry: false })?.isDirectory() === true;
  } catch {
    return false; // ENOTDIR: a file where a folder of the path belongs
  }
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
