import { closeSync, mkdirSync, openSync, readFileSync, unlinkSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';
import { NeoError } from '../../util/errors.js';
import { isProcessAlive } from './runs.js';

/** A held lock; release() is idempotent. */
export interface HeldLock {
  readonly path: string;
  release(): Promise<void>;
}

/** What a lock file says about its holder. */
export interface LockInfo {
  pid: number;
  runId: string;
  at: string;
}

/**
 * Takes a lock file (created exclusively). A lock whose holder process is gone is stale and
 * taken over; a live holder is a typed error naming the run that holds it.
 */
export async function acquireLockFile(
  path: string,
  info: LockInfo,
  describe: (holder: LockInfo) => NeoError,
): Promise<HeldLock> {
  mkdirSync(dirname(path), { recursive: true });
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      const fd = openSync(path, 'wx');
      try {
        writeSync(fd, JSON.stringify(info));
      } finally {
        closeSync(fd);
      }
      let released = false;
      return {
        path,
        async release() {
          if (released) return;
          released = true;
          const holder = readHolder(path);
          if (holder?.pid === info.pid && holder.runId === info.runId) removeFile(path);
        },
      };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const holder = readHolder(path);
      // Held by a live process — this one included, for another run — is busy; a holder whose
      // process died (or this very run, from an earlier attempt) is stale and taken over.
      const ours = holder !== null && holder.pid === info.pid && holder.runId === info.runId;
      if (holder !== null && !ours && isProcessAlive(holder.pid)) throw describe(holder);
      removeFile(path);
    }
  }
  throw new NeoError('FLOW_LOCK_BUSY', `could not take the lock ${path}`);
}

/** Deletes a lock file that may already be gone (unlink: rmSync would load its recursive remover first). */
function removeFile(path: string): void {
  try {
    unlinkSync(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
}

function readHolder(path: string): LockInfo | null {
  try {
    return JSON.parse(readFileSync(path, 'utf8')) as LockInfo;
  } catch {
    return null;
  }
}
