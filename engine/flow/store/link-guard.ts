import { constants, openSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { PRIVATE_FILE_MODE } from '../../util/private-store.js';
import { tamperedError } from './trust-errors.js';

// neo never makes a link in a run's folder: one there was planted by a step, for neo to read, write
// or delete through. The run store opens its log refusing one and checks the folder before each
// execution starts.

/**
 * Opens a run's log with `flags` (always without following a link); undefined when it does not
 * exist and is not being created. A link in its place, or a file where a new log goes, is
 * STORE_TAMPERED.
 */
export function openLog(path: string, flags: number): number | undefined {
  try {
    return openSync(path, flags, PRIVATE_FILE_MODE);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' && (flags & constants.O_CREAT) === 0) return undefined;
    if (code === 'ELOOP') throw tamperedError(path, "a link where the run's log goes");
    if (code === 'EEXIST') throw tamperedError(path, 'a log that this run did not write is already there');
    throw error;
  }
}

/** Throws STORE_TAMPERED when a link sits in the run's folder, or in one of its folders. */
export function refuseLinks(dir: string): void {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isSymbolicLink())
      throw tamperedError(path, "a link in the run's folder; neo never makes one, nor writes or removes through one");
    if (entry.isDirectory() && RUN_FOLDERS_CHECKED.has(entry.name))
      for (const inner of readdirSync(path, { withFileTypes: true }))
        if (inner.isSymbolicLink())
          throw tamperedError(
            join(path, inner.name),
            "a link in the run's folder; neo never makes one, nor writes or removes through one",
          );
  }
}

/** Folders of a run whose own entries are folders neo writes into (a link there is checked too). */
const RUN_FOLDERS_CHECKED = new Set(['snapshots']);
