/**
 * neo's own install, when it lies in a workspace a confined process writes: a project-local
 * `npm install neo-flow` run as `npx neo` puts neo's package, the dependencies it loads (hoisted
 * beside it) and the `.bin/neo` link in the checkout's node_modules, which an `inplace` run's
 * steps write. A step that rewrote any of them ran its code unconfined, with neo's whole
 * environment, at the user's next `npx neo`. That install tree (the outermost node_modules
 * holding neo's package) is shown read-only over the workspace's write access. A consequence: an
 * `inplace` step's `npm install` in such a project cannot write node_modules (EROFS); a worktree
 * run (the default) lends the checkout's node_modules read-only anyway and an install there
 * replaces the mirror. A neo run from its own repository's `dist/` (no node_modules) is the
 * developer's build, left writable.
 */
import { realpathSync } from 'node:fs';
import { sep } from 'node:path';
import { packageRoot } from '../util/package-root.js';
import type { SandboxBind } from './sandbox-spec.js';

/** The read-only bind of neo's install tree when it lies inside `workspace`, else none. */
export function ownInstallBinds(workspace: string, root: string = packageRoot()): SandboxBind[] {
  const parts = realOrSelf(root).split(sep);
  const outermost = parts.indexOf('node_modules');
  if (outermost <= 0) return [];
  const tree = parts.slice(0, outermost + 1).join(sep);
  const inside = realOrSelf(workspace);
  return tree.startsWith(inside.endsWith(sep) ? inside : inside + sep) ? [{ path: tree }] : [];
}

function realOrSelf(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}
