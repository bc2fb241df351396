import { createHash } from 'node:crypto';
import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';

/** Files larger than this are fingerprinted by size and mtime instead of content. */
const HASH_LIMIT_BYTES = 4 * 1024 * 1024;
/** Past this many dirty paths a turn stops fingerprinting (those paths count as changed). */
export const MAX_FINGERPRINTS = 2000;

/**
 * A cheap identity of a file's content at one moment: 'missing', a content hash, or size+mtime
 * for a big file. Lets a turn's diff drop files that were already dirty when the turn began
 * and that the turn did not touch (git alone diffs against HEAD, so it cannot tell).
 */
export async function fingerprint(root: string, path: string): Promise<string> {
  const file = join(root, path);
  try {
    const info = await stat(file);
    if (!info.isFile()) return `other:${info.mode}`;
    if (info.size > HASH_LIMIT_BYTES) return `big:${info.size}:${info.mtimeMs}`;
    return `sha1:${createHash('sha1')
      .update(await readFile(file))
      .digest('hex')}`;
  } catch {
    return 'missing';
  }
}

/** Fingerprints of `paths` (at most {@link MAX_FINGERPRINTS}; the rest are left out). */
export async function fingerprints(root: string, paths: Iterable<string>): Promise<Map<string, string>> {
  const selected = [...paths].slice(0, MAX_FINGERPRINTS);
  const values = await Promise.all(selected.map((path) => fingerprint(root, path)));
  return new Map(selected.map((path, i) => [path, values[i]!]));
}

/** A dirty file kept whole up to this size, so a later turn can count its own line changes. */
const KEEP_LIMIT_BYTES = 256 * 1024;
/** …and at most this much in all per turn. */
const KEEP_TOTAL_BYTES = 8 * 1024 * 1024;

/**
 * The content of small dirty files at turn start. A file the turn changes again is counted
 * against this copy (its git counts are relative to HEAD, so they would include earlier turns).
 */
export async function keepContents(root: string, paths: Iterable<string>): Promise<Map<string, Buffer>> {
  const kept = new Map<string, Buffer>();
  let total = 0;
  for (const path of [...paths].slice(0, MAX_FINGERPRINTS)) {
    try {
      const file = join(root, path);
      const info = await stat(file);
      if (!info.isFile() || info.size > KEEP_LIMIT_BYTES || total + info.size > KEEP_TOTAL_BYTES) continue;
      const content = await readFile(file);
      kept.set(path, content);
      total += content.length;
    } catch {
      // Gone or unreadable: nothing to count against.
    }
  }
  return kept;
}
