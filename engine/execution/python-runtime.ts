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
 * A `bin` that merely holds a Python link (`~/.local/bin`, whose `~/.local` holds keyrings and app
 * tokens) is never shown whole. A virtualenv in the workspace needs none of this: its base install
 * is lent with it (flow/workspace/lend.ts).
 */
import { lstatSync, readdirSync, statSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
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
    return {
      binds: [{ path: root }],
      hide: [],
      env: { PYENV_ROOT: root, ...(version === undefined || version === '' ? {} : { PYENV_VERSION: version }) },
    };
  }
  // Python finds its standard library from its executable's real path: a link shown as a copy at
  // another place (a bind) would look for it there, so a link must be one the sandbox shows as a link.
  if (basename(binDir) !== 'bin' || !isPythonPrefix(root)) return NO_LOAN;
  if (found.entry !== binDir && inHidden(found.entry, hidden)) return NO_LOAN;
  return { binds: [{ path: root }], hide: [] };
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
