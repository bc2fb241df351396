/**
 * The Node.js install a confined process finds on its PATH, shown read-only when it lies in a
 * tree the sandbox hides. A developer's Node usually lives in the home (nvm's
 * `~/.nvm/versions/node/<v>`, fnm's, a `~/.local` prefix), which every sandbox hides: `npm test`
 * in a gate said `npm: not found`, and an agent CLI installed with that npm (`#!/usr/bin/env node`)
 * could not start, or silently ran under another Node the host happened to have.
 *
 * What is shown is the install's prefix (the folder holding `bin/node`: `lib/node_modules` with
 * npm and the global packages, `include`, `share`) — never the home, never a prefix that holds a
 * hidden tree, and without its `etc/` (the global `npmrc`, where `npm config set --global` puts a
 * registry token). A PATH entry that reaches it through a link (fnm's per-shell folders) is shown
 * at its own path too, so the same PATH finds it inside.
 */
import { realpathSync, statSync } from 'node:fs';
import { basename, delimiter, dirname, join, sep } from 'node:path';
import type { SandboxBind } from './sandbox-spec.js';

export interface RuntimeLoan {
  binds: SandboxBind[];
  /** Hidden again inside what `binds` shows. */
  hide: string[];
}

/** What a confined process with `env`'s PATH is lent of the Node install it would run. */
export function nodeRuntimeLoan(env: NodeJS.ProcessEnv, hidden: readonly string[]): RuntimeLoan {
  const found = onPath('node', env.PATH ?? '');
  if (found === undefined) return { binds: [], hide: [] };
  const inHidden = (path: string) => hidden.some((tree) => path === tree || path.startsWith(tree + sep));
  const holdsHidden = (path: string) => hidden.some((tree) => tree === path || tree.startsWith(path + sep));
  const binDir = dirname(found.real);
  if (!inHidden(found.real)) return { binds: [], hide: [] };
  const prefix = basename(binDir) === 'bin' ? dirname(binDir) : binDir;
  // A prefix that is (or holds) a hidden tree — a Node whose `bin` is the home's own `~/bin` —
  // is never shown whole: the binary alone is.
  if (holdsHidden(prefix)) return { binds: [{ path: found.real }], hide: [] };
  const binds: SandboxBind[] = [{ path: prefix }];
  if (found.entry !== binDir && inHidden(found.entry)) binds.push({ path: binDir, at: found.entry });
  return { binds, hide: [join(prefix, 'etc')] };
}

/** The first `name` on `path` (as the shell would find it) and the PATH entry it was found in. */
function onPath(name: string, path: string): { entry: string; real: string } | undefined {
  for (const entry of path.split(delimiter)) {
    if (!entry.startsWith('/')) continue;
    try {
      const real = realpathSync(join(entry, name));
      if (statSync(real).isFile()) return { entry, real };
    } catch {
      continue;
    }
  }
  return undefined;
}
