/**
 * What a sandbox lets its processes write, asked by code that writes for a confined agent from
 * neo's own process (the script backend's file tools, neo's own agent's write and edit). Those
 * writes pass no mount: without this rule they reached what the sandbox shows read-only inside
 * the workspace — an `inplace` run's `.neo/` and `.claude/` (the trusted project's layer, read at
 * the user's next command), neo's own install. The rule is bwrap's own (sandbox-bwrap.ts): the
 * deepest bind that holds a path decides it.
 */
import { realpathSync } from 'node:fs';
import { sep } from 'node:path';
import type { SandboxBind, SandboxKind } from './sandbox-spec.js';

/** The read-only bind that holds `path` (a real path) in the sandbox, else undefined (writable, or no sandbox). */
export function readOnlyBindHolding(
  box: { kind: SandboxKind; binds: readonly SandboxBind[] } | undefined,
  path: string,
): string | undefined {
  if (box === undefined || box.kind === 'none') return undefined;
  let deepest: { at: string; write: boolean } | undefined;
  for (const bind of box.binds) {
    const at = realOrSelf(bind.at ?? bind.path);
    if (!within(at, path)) continue;
    if (deepest === undefined || depth(at) >= depth(deepest.at)) deepest = { at, write: bind.write === true };
  }
  return deepest === undefined || deepest.write ? undefined : deepest.at;
}

function depth(path: string): number {
  return path.split(sep).length;
}

function within(parent: string, path: string): boolean {
  return path === parent || path.startsWith(parent.endsWith(sep) ? parent : parent + sep);
}

function realOrSelf(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}
