/**
 * The one rule of what a confined process of a run sees: the host read-only; the workspace
 * read-write; NEO_HOME hidden whole (the run's records, its key, its session daemon's socket);
 * the user's home hidden (an agent CLI gets a home of its own instead,
 * engine/transports/shared/agent-home.ts); /run (where daemons' sockets live: a database, D-Bus,
 * docker) and the folder neo's own sockets fall back to hidden; the workspace's git metadata
 * read-only, shown even where it lies in a hidden tree (git works on a worktree whose repository
 * lives in the hidden home), its config without the credentials it may hold
 * (engine/execution/git-config-mask.ts); the Node install and the Python its PATH finds shown
 * read-only where the home would hide them (engine/execution/runtime-loan.ts). What is hidden stays hidden whatever is bound (the sandbox hides
 * again what a bind would show). Every caller builds its spec here, so the rule is stated once.
 */
import { realpathSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, isAbsolute, join, sep } from 'node:path';
import type { SandboxBind, SandboxSpec } from './sandbox-spec.js';
import { defined } from '../util/defined.js';
import { privateSocketFolders } from '../util/private-socket.js';
import { gitConfigMasks } from './git-config-mask.js';
import { runtimeLoan } from './runtime-loan.js';
import { inHidden } from './runtime-path.js';
import { isPythonPrefix, ownFiles } from './python-runtime.js';
import { ownInstallBinds } from './own-install.js';

export interface Confinement {
  /** The tree the process may change (the workspace root). */
  workspace: string;
  /** Where it appears inside (default: where it is; a gate's fresh copy appears at the workspace's path). */
  workspaceAt?: string;
  cwd: string;
  /** NEO_HOME: hidden. */
  neoHome: string;
  /** Further host trees hidden like the home (a worktree's or copy's checkout); what `readable` names in them shows. */
  hidden?: readonly string[];
  /** Host paths shown read-only, over the workspace or although they lie in a hidden tree (the workspace's git metadata). */
  readable?: readonly string[];
  /** Further binds, applied after the workspace's (a path inside it shown read-only, a tree moved in, a step's output folder). */
  binds?: readonly SandboxBind[];
  network: boolean;
  env: NodeJS.ProcessEnv;
  timeoutMs?: number;
}

/** The spec for `confinement`; the user's home is the environment's HOME (else the OS's). */
export function confinedSpec(c: Confinement): SandboxSpec {
  const home = c.env.HOME !== undefined && c.env.HOME !== '' ? c.env.HOME : homedir();
  // Real paths: a hidden tree must be recognised inside a bind, which is a real path too.
  const hidden = [home, c.neoHome, '/run', ...privateSocketFolders(), ...(c.hidden ?? [])]
    .filter((path) => path !== '')
    .map(realOrSelf);
  // The Node and Python its PATH finds, when they lie in the hidden home (nvm, fnm, pyenv, uv): read-only.
  const runtime = runtimeLoan(c.env, hidden);
  const readable = (c.readable ?? []).filter((path) => !holdsHidden(path, hidden));
  // A Python install lent from a hidden tree (a virtualenv's base: a conda or pyenv prefix in the
  // home), without what it keeps of the user's own, as the loan's (python-runtime.ts). One the
  // host shows anyway (`/usr`, `/usr/local`) is left as it is: hiding its `etc/` would break it.
  const own = ownFiles(readable.filter((path) => inHidden(path, hidden) && isPythonPrefix(path)));
  const hide = [...hidden, ...runtime.hide, ...own.hide];
  const binds: SandboxBind[] = [
    ...runtime.binds,
    ...readable.map((path) => ({ path, optional: true })),
    ...own.binds,
    { path: c.workspace, write: true, ...defined({ at: c.workspaceAt }) },
    // neo's own install in the workspace (`npx neo` from the project): read-only (own-install.ts);
    // in a hidden checkout, shown read-only (the memory server an agent CLI starts is neo).
    ...(c.workspaceAt === undefined ? ownInstallBinds(c.workspace) : []),
    ...(c.hidden ?? []).flatMap((tree) => ownInstallBinds(tree)),
    ...(c.binds ?? []),
    // Over the configs of the git dirs shown: the same files without the credentials they hold.
    ...gitConfigMasks(c.readable ?? [], join(c.neoHome, 'masks')),
  ];
  // Name resolution on a host whose resolv.conf points into /run (systemd-resolved).
  if (c.network) binds.push({ path: '/run/systemd/resolve', optional: true });
  return {
    cwd: c.cwd,
    binds,
    hide,
    network: c.network,
    env: runtime.env === undefined ? c.env : { ...c.env, ...runtime.env },
    ...defined({ timeoutMs: c.timeoutMs }),
  };
}

/**
 * A path shown read-only may lie in a hidden tree (a worktree's git dirs in NEO_HOME, a base
 * Python under the home), never be one or hold one: what a run's record says to show partly comes
 * from files of the checkout (a venv's `pyvenv.cfg`), and a `/`, the home or NEO_HOME shown there
 * would show the store key and the user's secrets.
 */
function holdsHidden(path: string, hidden: readonly string[]): boolean {
  const real = realOrSelf(path);
  return hidden.some((tree) => tree === real || tree.startsWith(real.endsWith('/') ? real : `${real}/`));
}

/**
 * A backend's config home as a host path: under the home when relative (`.codex`), as written
 * when absolute, `${VAR}` expanded — undefined when a variable it names is unset.
 */
export function configHomePath(name: string, env: NodeJS.ProcessEnv): string | undefined {
  let unset = false;
  const expanded = name.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g, (_, variable: string) => {
    const value = env[variable];
    if (value === undefined || value === '') unset = true;
    return value ?? '';
  });
  if (unset) return undefined;
  const home = env.HOME !== undefined && env.HOME !== '' ? env.HOME : homedir();
  return expanded.startsWith('/') ? expanded : join(home, expanded.replace(/^~\//, ''));
}

/**
 * The program a confined process runs stays readable wherever it is installed: a CLI under /tmp
 * (a CI checkout's `.neo-cache`) or under the hidden home would otherwise vanish from inside. Its
 * install tree is its outermost `node_modules` folder (a package needs its siblings), else the
 * folder it lies in — and never a folder that holds or is a hidden tree (a CLI installed by `npm
 * install` in the home folder has its `node_modules` there, not the home itself; a program lying
 * in the home is shown alone). Read-only like the rest of the host, and left alone when a bind
 * already shows it (a read-only bind inside the workspace would take the agent's write access).
 */
export function programBind(file: string, binds: readonly SandboxBind[], hide: readonly string[] = []): SandboxBind[] {
  if (!isAbsolute(file)) return []; // found on PATH inside, as outside
  let real: string;
  try {
    real = realpathSync(file);
  } catch {
    return []; // the spawn says what is missing
  }
  const parts = real.split(sep);
  const outermost = parts.indexOf('node_modules');
  const tree = outermost > 0 ? parts.slice(0, outermost + 1).join(sep) : dirname(real);
  const hidden = hide.flatMap((path) => [path, realOrSelf(path)]);
  const root = hidden.some((path) => path === tree || path.startsWith(tree + sep)) ? real : tree;
  const shown = binds.some((b) => root === b.path || root.startsWith(b.path + sep));
  return shown ? [] : [{ path: root }];
}

function realOrSelf(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}
