/**
 * What a sandbox lets its processes write, asked by code that writes for a confined agent from
 * neo's own process (the script backend's file tools, neo's own agent's write and edit). Those
 * writes pass no mount: without this rule they reached what the sandbox shows read-only inside
 * the workspace — an `inplace` run's `.neo/` and `.claude/` (the trusted project's layer, read at
 * the user's next command), neo's own install; and what it hides there (NEO_HOME inside the
 * checkout). The rule is bwrap's own (sandbox-bwrap.ts): the deepest mount that holds a path
 * decides it.
 */
import { lstatSync, realpathSync } from 'node:fs';
import { dirname, sep } from 'node:path';
import type { SandboxBind, SandboxKind } from './sandbox-spec.js';

/** What of a session's sandbox these checks read (`CommandSandbox`, `SessionSandbox`). */
type Box = { kind: SandboxKind; binds: readonly SandboxBind[]; hide?: readonly string[] };

/**
 * What keeps `path` (a real path) from being written in the sandbox: the read-only bind, or the
 * hidden tree, that holds it; undefined when it is writable there (or there is no sandbox). A
 * hidden tree inside the workspace (a NEO_HOME kept in the checkout) is an empty tmpfs inside:
 * written from neo's process it was the real one, the run store and its key.
 */
export function readOnlyBindHolding(box: Box | undefined, path: string): string | undefined {
  if (box === undefined || box.kind === 'none') return undefined;
  // bwrap's order (sandbox-bwrap.ts mountArgs): deeper mounts over shallower; at one path the
  // hide first, then the bind.
  let deepest: { at: string; write: boolean } | undefined;
  const mounts = [
    ...['/tmp', ...(box.hide ?? [])].map((at) => ({ at: realOrSelf(at), write: false, hide: true })),
    ...box.binds.map((bind) => ({ at: realOrSelf(bind.at ?? bind.path), write: bind.write === true, hide: false })),
  ];
  for (const mount of mounts) {
    if (!within(mount.at, path)) continue;
    const over =
      deepest === undefined ||
      depth(mount.at) > depth(deepest.at) ||
      (depth(mount.at) === depth(deepest.at) && !mount.hide);
    if (over) deepest = mount;
  }
  return deepest === undefined || deepest.write ? undefined : deepest.at;
}

/**
 * A read-only bind or hidden tree that lies inside `path` (a real path), which a rename of `path`
 * from neo's process would carry off: no mount holds it there, and the protected tree, moved to
 * a path no bind names, was written and moved back. Undefined when there is none (or no sandbox).
 */
export function protectedInside(box: Box | undefined, path: string): string | undefined {
  if (box === undefined || box.kind === 'none') return undefined;
  const held = [
    ...(box.hide ?? []),
    ...box.binds.filter((bind) => bind.write !== true).map((bind) => bind.at ?? bind.path),
  ].map(realOrSelf);
  return held.find((at) => at !== path && within(path, at));
}

type Pinned = { at: string; dev: bigint; ino: bigint };
const pinned = new WeakMap<Box, Pinned[]>();

/**
 * Takes, at a session's start, the identity (device, inode) of each read-only bind and hidden
 * tree that lies below the workspace's root: a confined process may rename a folder above a
 * mount (the mount moves with it; only a mount point itself cannot be renamed), and a path check
 * then no longer knows the tree. {@link movedProtected} knows it by identity.
 */
export function pinProtected(box: Box | undefined, root: string): void {
  if (box === undefined || box.kind === 'none' || pinned.has(box)) return;
  const top = realOrSelf(root);
  const trees = [
    ...(box.hide ?? []),
    ...box.binds.filter((bind) => bind.write !== true).map((bind) => bind.at ?? bind.path),
  ]
    .map(realOrSelf)
    .filter((at) => at !== top && within(top, at));
  pinned.set(
    box,
    trees.flatMap((at) => {
      const info = lstatSync(at, { throwIfNoEntry: false, bigint: true });
      return info === undefined ? [] : [{ at, dev: info.dev, ino: info.ino }];
    }),
  );
}

/** The tree pinned by {@link pinProtected} that `path` (a real path below `root`) now lies in under another name, else undefined. */
export function movedProtected(box: Box | undefined, root: string, path: string): string | undefined {
  const trees = box === undefined ? undefined : pinned.get(box);
  if (trees === undefined || trees.length === 0) return undefined;
  const top = realOrSelf(root);
  for (let at = path; at !== top && within(top, at); at = dirname(at)) {
    const info = lstatSync(at, { throwIfNoEntry: false, bigint: true });
    const tree = info === undefined ? undefined : trees.find((t) => t.dev === info.dev && t.ino === info.ino);
    if (tree !== undefined) return tree.at;
  }
  return undefined;
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
