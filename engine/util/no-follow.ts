/**
 * Folders neo writes into or removes from inside its store are never reached through a symbolic
 * link: a process that could write there (a step with the run folder in reach) could otherwise
 * plant `snapshots -> ~/project` and have neo write, or delete, a folder of the host. Each folder
 * is created one level at a time (0700) or found to be a real folder by `lstat`, never `stat`.
 */
import { constants, lstatSync, mkdirSync, readlinkSync } from 'node:fs';
import { join } from 'node:path';
import { NeoError } from './errors.js';
import { PRIVATE_DIR_MODE } from './private-store.js';

/** Flags that open a store file for appending and refuse a link in its place. */
export const APPEND_NO_FOLLOW = constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | constants.O_NOFOLLOW;

/**
 * `base/parts…` as a real folder: `base` is made if missing (it is neo's own: a run's or a
 * session's folder) and must be a folder, and each part below it is created private or found
 * to be a folder — none of them a link. Returns the path. Throws STORE_TAMPERED naming the link
 * (and where it points).
 */
export function realFolderSync(base: string, ...parts: string[]): string {
  let path = base;
  mkdirSync(base, { recursive: true, mode: PRIVATE_DIR_MODE });
  requireFolder(path);
  for (const part of parts) {
    path = join(path, part);
    try {
      mkdirSync(path, { mode: PRIVATE_DIR_MODE });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    requireFolder(path);
  }
  return path;
}

function requireFolder(path: string): void {
  const info = lstatSync(path);
  if (info.isDirectory()) return;
  const what = info.isSymbolicLink() ? `a link to ${safeReadlink(path)}` : 'not a folder';
  throw new NeoError('STORE_TAMPERED', `${path} is ${what}: neo never writes or removes through a link in its store`, {
    hint: 'something that ran with this folder in reach replaced it; remove the link, and start the flow again rather than resume it',
  });
}

function safeReadlink(path: string): string {
  try {
    return readlinkSync(path);
  } catch {
    return 'somewhere else';
  }
}
