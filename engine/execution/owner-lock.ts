/**
 * A lock file that names its owner process by pid AND start time. A holder that is no longer that
 * very process — gone, a zombie, or a pid the kernel gave to someone else — is stale: the lock is
 * taken over, and the caller is told whose it was so it can say so.
 */
import { createHash, randomBytes } from 'node:crypto';
import { linkSync, readFileSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
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
  // Racing takeovers of one stale lock wait a moment for the claim's winner (a few μs of work).
  for (let attempt = 0; attempt < 100; attempt++) {
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
    if (!removeIfUnchanged(path, text)) pause(2);
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

/** A takeover claim older than this was left by a process that died mid-takeover. */
const CLAIM_ABANDONED_MS = 10_000;

/**
 * Removes the lock file judged stale, and only that one. The remover first claims that very
 * content: it hard-links the lock to a name derived from the judged text (exclusive: one process
 * wins), then checks the linked file still holds that text — so it is the stale file, not a fresh
 * lock someone put there meanwhile — and only then unlinks the lock. Everyone else who judged the
 * same file finds the claim taken and retries; one who claims later links the fresh lock and backs
 * off. No window exists in which the path is free while another process's lock is set aside.
 */
function removeIfUnchanged(path: string, judged: string): boolean {
  const claim = `${path}.${createHash('sha256').update(judged).digest('hex').slice(0, 16)}.claim`;
  try {
    linkSync(path, claim);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return true; // removed meanwhile
    if (code !== 'EEXIST') throw error;
    if (claimAbandoned(claim)) removeFile(claim);
    return false; // another process is removing it
  }
  try {
    if (readText(claim) === judged) removeFile(path);
  } finally {
    removeFile(claim);
  }
  return true;
}

/** Blocks this thread for `ms` (lock taking is synchronous by design). */
function pause(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

function claimAbandoned(claim: string): boolean {
  try {
    return Date.now() - statSync(claim).mtimeMs > CLAIM_ABANDONED_MS;
  } catch {
    return false;
  }
}

/** A private name next to the lock, unique to this process and call. */
function asidePath(path: string, what: 'new'): string {
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
