/**
 * A lock file that names its owner process by pid AND start time. A holder that is no longer that
 * very process — gone, a zombie, or a pid the kernel gave to someone else — is stale: the lock is
 * taken over, and the caller is told whose it was so it can say so.
 */
import { randomBytes } from 'node:crypto';
import { linkSync, readFileSync, renameSync, unlinkSync, writeFileSync } from 'node:fs';
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
    if (createWhole(path, JSON.stringify(info))) {
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
    }
    const text = readText(path);
    if (text === undefined) continue; // released meanwhile
    const holder = parseHolder<T>(text);
    if (holder !== null && isSameProcess({ pid: holder.pid, ...defined({ start: holder.start }) })) {
      const ours = holder.pid === self.pid && options.isOurs?.(holder) === true;
      if (!ours) throw options.busy(holder);
    } else if (holder !== null) {
      tookOverFrom = holder;
    }
    removeIfUnchanged(path, text);
  }
  throw new Error(`could not take the lock ${path}`);
}

/**
 * Creates the lock file with its whole content, or returns false when one exists: the content is
 * written aside and hard-linked into place (exclusive, like `wx`), so no other process ever reads
 * a lock file half written and takes it for garbage.
 */
function createWhole(path: string, content: string): boolean {
  const aside = asidePath(path, 'new');
  writeFileSync(aside, content, { mode: PRIVATE_FILE_MODE, flag: 'wx' });
  try {
    linkSync(aside, path);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    return false;
  } finally {
    removeFile(aside);
  }
}

/**
 * Removes the lock file judged stale, and only that one: it is moved aside (one process wins the
 * rename) and compared with what was judged; a fresh lock another process put there meanwhile is
 * linked back, so two processes that found the same stale lock never both take it.
 */
function removeIfUnchanged(path: string, judged: string): void {
  const aside = asidePath(path, 'stale');
  try {
    renameSync(path, aside);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return; // someone else removed it
    throw error;
  }
  try {
    if (readText(aside) !== judged) linkSync(aside, path);
  } catch (error) {
    // EEXIST: a third process took the free path meanwhile; the lock it holds stands.
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  } finally {
    removeFile(aside);
  }
}

/** A private name next to the lock, unique to this process and call. */
function asidePath(path: string, what: 'new' | 'stale'): string {
  return `${path}.${process.pid}.${randomBytes(4).toString('hex')}.${what}`;
}

/** Deletes a file that may already be gone. */
function removeFile(path: string): void {
  try {
    unlinkSync(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
}

function readText(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
}

function readHolder<T>(path: string): (T & LockOwner) | null {
  const text = readText(path);
  return text === undefined ? null : parseHolder<T>(text);
}

function parseHolder<T>(text: string): (T & LockOwner) | null {
  try {
    const value = JSON.parse(text) as T & LockOwner;
    return typeof value === 'object' && value !== null && typeof value.pid === 'number' ? value : null;
  } catch {
    return null;
  }
}
