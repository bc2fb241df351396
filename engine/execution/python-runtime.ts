/**
 * The Python a confined process finds on its PATH, shown read-only when it lies in a tree the
 * sandbox hides. A developer's Python usually lives in the home — pyenv's `~/.pyenv`, uv's
 * `~/.local/share/uv/python/<v>` — which every sandbox hides: `python3 -m pytest` in a gate then
 * ran the host's own `/usr/bin/python3` ("No module named pytest"), or nothing.
 *
 * Two shapes are lent, each only when it is what it claims to be, never the home or a folder
 * holding a hidden tree:
 * - **pyenv**: PATH finds a shim (`<root>/shims/python3`, with pyenv itself at
 *   `<root>/libexec/pyenv`). The shim runs pyenv, which picks the version (PYENV_VERSION, the
 *   project's `.python-version`, `<root>/version`) and runs it: the whole root is shown (its
 *   versions with their site-packages, pyenv's scripts and plugins; no credentials live there), and
 *   PYENV_ROOT names it, since inside the sandbox HOME is not the user's.
 * - **an install prefix**: PATH finds an interpreter in `<prefix>/bin` whose prefix holds its
 *   standard library (`lib/pythonX.Y/os.py`) — conda's, uv's or pyenv's version folder on PATH
 *   itself, or reached through a link outside the hidden trees (`/usr/local/bin/python3`): that
 *   prefix is shown. A link inside the hidden home (uv's `~/.local/bin/python3.12`) is not: the
 *   sandbox can show a folder or a file at a place, not a link, and Python looks for its library
 *   beside the path it was started from; `neo init` says so.
 * Either way what a Python install keeps of the user's own is taken out of what is shown, in the
 * install and in each environment it holds (`envs/*`, pyenv's `versions/*`): pip's site config
 * (`pip.conf`, where `pip config --site` puts an index URL with its token), conda's (`.condarc`,
 * `condarc`, `condarc.d/`: `conda config --system` puts a channel token there), `conda-meta/`
 * (`conda env config vars set` keeps the values in its `state`), `pkgs/` (conda's download cache,
 * whose `urls.txt` names each channel URL, a token channel's with its token; nothing runs from it)
 * and `etc/` (activation scripts, like the Node loan's `etc/`).
 * A `bin` that merely holds a Python link (`~/.local/bin`, whose `~/.local` holds keyrings and app
 * tokens) is never shown whole. A virtualenv in the workspace needs none of this: its base install
 * is lent with it (flow/workspace/lend.ts).
 */
import { lstatSync, readdirSync, statSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import type { SandboxBind } from './sandbox-spec.js';
import { holdsHidden, inHidden, NO_LOAN, onPath, type RuntimeLoan } from './runtime-path.js';

/** What a confined process with `env`'s PATH is lent of the Python it would run as `python3`. */
export function pythonRuntimeLoan(env: NodeJS.ProcessEnv, hidden: readonly string[]): RuntimeLoan {
  const found = onPath('python3', env.PATH ?? '');
  if (found === undefined || !inHidden(found.real, hidden)) return NO_LOAN;
  const binDir = dirname(found.real);
  const root = dirname(binDir);
  if (holdsHidden(root, hidden)) return NO_LOAN;
  if (basename(binDir) === 'shims' && isFile(join(root, 'libexec', 'pyenv'))) {
    const version = env.PYENV_VERSION;
    const own = ownFiles(subfolders(join(root, 'versions')));
    return {
      binds: [{ path: root }, ...own.binds],
      hide: own.hide,
      env: { PYENV_ROOT: root, ...(version === undefined || version === '' ? {} : { PYENV_VERSION: version }) },
    };
  }
  // Python finds its standard library from its executable's real path: a link shown as a copy at
  // another place (a bind) would look for it there, so a link must be one the sandbox shows as a link.
  if (basename(binDir) !== 'bin' || !isPythonPrefix(root)) return NO_LOAN;
  if (found.entry !== binDir && inHidden(found.entry, hidden)) return NO_LOAN;
  const own = ownFiles([root]);
  return { binds: [{ path: root }, ...own.binds], hide: own.hide };
}

/** Files of an install that are the user's settings, never the runtime's: shown empty. */
const OWN_FILES = ['pip.conf', '.condarc', 'condarc'];
/** Folders of an install that are the user's settings or state: hidden. */
const OWN_FOLDERS = ['etc', 'condarc.d', 'conda-meta', 'pkgs'];

/**
 * What of `prefixes` (Python installs shown read-only) and the environments they hold (`envs/*`)
 * is hidden or shown empty: for this loan's, and for a lent virtualenv's base (sandbox-confine.ts).
 */
export function ownFiles(prefixes: readonly string[]): { binds: SandboxBind[]; hide: string[] } {
  const all = prefixes.flatMap((prefix) => [prefix, ...subfolders(join(prefix, 'envs'))]);
  return {
    // A file is no mount point for a tmpfs: `/dev/null` is bound over it. A link is left: it
    // leads where the sandbox shows or hides on its own.
    binds: all.flatMap((prefix) =>
      OWN_FILES.map((name) => join(prefix, name))
        .filter((path) => lstatSync(path, { throwIfNoEntry: false })?.isFile() === true)
        .map((path) => ({ path: '/dev/null', at: path })),
    ),
    hide: all.flatMap((prefix) => OWN_FOLDERS.map((name) => join(prefix, name))),
  };
}

/** The real folders in `dir` (no links followed), none when it is not one. */
function subfolders(dir: string): string[] {
  try {
    return readdirSync(dir, { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .map((entry) => join(dir, entry.name));
  } catch {
    return [];
  }
}

/** Whether `prefix` is a Python install: `lib/pythonX.Y/os.py` (a free-threaded `X.Yt` too) is a regular file. */
export function isPythonPrefix(prefix: string): boolean {
  let names: string[];
  try {
    names = readdirSync(join(prefix, 'lib'));
  } catch {
    return false;
  }
  return names
    .filter((name) => /^python\d+\.\d+t?$/.test(name))
    .some((name) => lstatSync(join(prefix, 'lib', name, 'os.py'), { throwIfNoEntry: false })?.isFile() === true);
}

function isFile(path: string): boolean {
  return statSync(path, { throwIfNoEntry: false })?.isFile() === true;
}
