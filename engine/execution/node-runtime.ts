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
import { basename, dirname, join } from 'node:path';
import type { SandboxBind } from './sandbox-spec.js';
import { holdsHidden, inHidden, NO_LOAN, onPath, type RuntimeLoan } from './runtime-path.js';

/** What a confined process with `env`'s PATH is lent of the Node install it would run. */
export function nodeRuntimeLoan(env: NodeJS.ProcessEnv, hidden: readonly string[]): RuntimeLoan {
  const found = onPath('node', env.PATH ?? '');
  if (found === undefined || !inHidden(found.real, hidden)) return NO_LOAN;
  const binDir = dirname(found.real);
  const prefix = basename(binDir) === 'bin' ? dirname(binDir) : binDir;
  // A prefix that is (or holds) a hidden tree — a Node whose `bin` is the home's own `~/bin` —
  // is never shown whole: the binary alone is.
  if (holdsHidden(prefix, hidden)) return { binds: [{ path: found.real }], hide: [] };
  const binds: SandboxBind[] = [{ path: prefix }];
  if (found.entry !== binDir && inHidden(found.entry, hidden)) binds.push({ path: binDir, at: found.entry });
  return { binds, hide: [join(prefix, 'etc')] };
}
