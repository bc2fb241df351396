import { lstat, readdir } from 'node:fs/promises';
import { join } from 'node:path';

/**
 * The bytes a tree takes on disk (allocated blocks, as `du` counts them), links not followed and
 * a hard-linked file counted once; 0 for a path that is gone. What cannot be read counts as 0
 * rather than failing a listing.
 */
export async function diskUse(path: string, seen = new Set<string>()): Promise<number> {
  const info = await lstat(path).catch(() => undefined);
  if (info === undefined) return 0;
  const key = `${info.dev}:${info.ino}`;
  if (seen.has(key)) return 0;
  seen.add(key);
  const own = info.blocks * 512;
  if (!info.isDirectory()) return own;
  const names = await readdir(path).catch(() => [] as string[]);
  const sizes = await Promise.all(names.map((name) => diskUse(join(path, name), seen)));
  return sizes.reduce((sum, size) => sum + size, own);
}

/** A size for people: 512 B, 3.4 KB, 27 MB, 1.2 GB (powers of 1024). */
export function formatBytes(bytes: number): string {
  const units = ['B', 'KB', 'MB', 'GB', 'TB'];
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return unit === 0 ? `${value} B` : `${value < 10 ? value.toFixed(1) : Math.round(value)} ${units[unit]}`;
}
