/**
 * What the runtime loans (node-runtime.ts, python-runtime.ts) share: the shape of a loan, the
 * program a PATH finds as the shell would, and where a path lies against the hidden trees.
 */
import { realpathSync, statSync } from 'node:fs';
import { delimiter, join, sep } from 'node:path';
import type { SandboxBind } from './sandbox-spec.js';

export interface RuntimeLoan {
  binds: SandboxBind[];
  /** Hidden again inside what `binds` shows. */
  hide: string[];
  /** Variables the lent runtime needs inside (pyenv's root: the sandbox's home is not the user's). */
  env?: Record<string, string>;
}

export const NO_LOAN: RuntimeLoan = { binds: [], hide: [] };

/** The first `name` on `path` (as the shell would find it) and the PATH entry it was found in. */
export function onPath(name: string, path: string): { entry: string; real: string } | undefined {
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

/** Whether `path` lies in one of `hidden` (or is one). */
export function inHidden(path: string, hidden: readonly string[]): boolean {
  return hidden.some((tree) => path === tree || path.startsWith(tree + sep));
}

/** Whether `path` is, or holds, one of `hidden`: never shown whole (a `bin` that is the home's own `~/bin`). */
export function holdsHidden(path: string, hidden: readonly string[]): boolean {
  return hidden.some((tree) => tree === path || tree.startsWith(path + sep));
}
