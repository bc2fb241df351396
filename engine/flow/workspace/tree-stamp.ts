import { lstat, readdir } from 'node:fs/promises';
import { join, sep } from 'node:path';

/** Past this many entries a stamp stops walking (the rest is not compared). */
export const MAX_STAMP_ENTRIES = 50_000;

/** What a folder held at one moment: each entry's path → its type, size, mtime and inode. */
export interface TreeStamp {
  entries: Map<string, string>;
  /** The walk stopped at {@link MAX_STAMP_ENTRIES}. */
  partial: boolean;
}

/**
 * Stamps `paths` (files or folders, walked without following symlinks), leaving out anything
 * at or under `skip`, except in the walk of a path that is itself under a skipped folder (so
 * NEO_HOME is left out of a project folder that holds it, and its user layer is still stamped).
 * For folders outside git, where a snapshot tree is not available: a change of content changes
 * the mtime or size, an added or removed entry changes the listing.
 */
export async function stampTree(
  paths: readonly string[],
  skip: readonly string[] = [],
  max = MAX_STAMP_ENTRIES,
): Promise<TreeStamp> {
  const stamp: TreeStamp = { entries: new Map(), partial: false };
  const under = (path: string, folder: string) => path === folder || path.startsWith(folder + sep);
  let skipping: readonly string[] = skip;
  const record = async (path: string): Promise<boolean> => {
    if (skipping.some((folder) => under(path, folder))) return false;
    if (stamp.entries.size >= max) {
      stamp.partial = true;
      return false;
    }
    const info = await lstat(path).catch(() => undefined);
    if (info === undefined) return false;
    const kind = info.isDirectory() ? 'd' : info.isSymbolicLink() ? 'l' : 'f';
    stamp.entries.set(path, `${kind}:${info.size}:${info.mtimeMs}:${info.ino}:${info.mode}`);
    return kind === 'd';
  };
  const walk = async (folder: string): Promise<void> => {
    const children = (await readdir(folder).catch(() => [] as string[])).sort().map((name) => join(folder, name));
    const folders = await Promise.all(children.map(record));
    for (const [i, child] of children.entries()) if (folders[i]) await walk(child);
  };
  for (const path of paths) {
    skipping = skip.filter((folder) => !under(path, folder));
    if (await record(path)) await walk(path);
  }
  return stamp;
}

/** The paths that differ between two stamps (added, removed or changed), sorted. */
export function stampChanges(before: TreeStamp, after: TreeStamp): string[] {
  const changed = new Set<string>();
  for (const [path, value] of after.entries) if (before.entries.get(path) !== value) changed.add(path);
  for (const path of before.entries.keys()) if (!after.entries.has(path) && !after.partial) changed.add(path);
  // A folder's mtime moves when an entry inside it is added or removed: name the entry, not the folder.
  const files = [...changed].filter((path) => ![...changed].some((other) => other.startsWith(path + sep)));
  return files.sort();
}
