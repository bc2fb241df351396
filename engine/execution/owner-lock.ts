/**
 * A lock file that names its owner process by pid AND start time. A holder that is no longer that
 * very process — gone, a zombie, or a pid the kernel gave to someone else — is stale: the lock is
 * taken over, and the caller is told whose it was so it can say so.
 */
import { closeSync, openSync, readFileSync, unlinkSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';
import { isSameProcess, selfIdentity } from './identity.js';
import { mkdirPrivateSync, PRIVATE_FILE_MODE } from '../util/private-store.js';
import { defined } from '../util/defined.js';

/** What every lock file says about its holder, besides the caller's own fields. */
export interface LockOwner {
  pid: number;
  start?: number;
  at: string;
}

export interface HeldLock<T> {
  readonly path: string;
  /** The stale holder this lock was taken over from, if any. */
  readonly tookOverFrom: (T & LockOwner) | undefined;
  /** Removes the lock if it is still ours (idempotent). */
  release(): void;
}

/**
 * Takes the lock at `path` (created exclusively). A holder that is the same running process and
 * `isOurs` (a resumed attempt of the same work) is taken back; any other live holder makes
 * `busy(holder)` the thrown error.
 */
export function acquireOwnerLock<T extends object>(
  path: string,
  fields: T,
  options: { busy: (holder: T & LockOwner) => Error; isOurs?: (holder: T & LockOwner) => boolean },
): HeldLock<T> {
  mkdirPrivateSync(dirname(path));
  const self = selfIdentity();
  const info: T & LockOwner = {
    ...fields,
    pid: self.pid,
    ...defined({ start: self.start }),
    at: new Date().toISOString(),
  };
  let tookOverFrom: (T & LockOwner) | undefined;
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      const fd = openSync(path, 'wx', PRIVATE_FILE_MODE);
      try {
        writeSync(fd, JSON.stringify(info));
      } finally {
        closeSync(fd);
      }
      let released = false;
      return {
        path,
        tookOverFrom,
        release() {
          if (released) return;
          released = true;
          const holder = readHolder<T>(path);
          if (holder !== null && holder.pid === info.pid && holder.at === info.at) removeFile(path);
        },
      };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const holder = readHolder<T>(path);
      if (holder !== null && isSameProcess({ pid: holder.pid, ...defined({ start: holder.start }) })) {
        const ours = holder.pid === self.pid && options.isOurs?.(holder) === true;
        if (!ours) throw options.busy(holder);
      } else if (holder !== null) {
        tookOverFrom = holder;
      }
      removeFile(path);
    }
  }
  throw new Error(`could not take the lock ${path}`);
}

/** Deletes a lock file that may already be gone. */
function removeFile(path: string): void {
  try {
    unlinkSync(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
}

function readHolder<T>(path: string): (T & LockOwner) | null {
  try {
    const value = JSON.parse(readFileSync(path, 'utf8')) as T & LockOwner;
    return typeof value === 'object' && value !== null && typeof value.pid === 'number' ? value : null;
  } catch {
    return null;
  }
}
