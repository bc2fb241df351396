/**
 * NEO_HOME holds every brief, transcript and diff: it is private to its user whatever the umask.
 * Folders neo creates in it are 0700 (NEO_HOME first, so nothing under it is reachable by anyone
 * else) and the files it writes are 0600. A store made before that (0755 folders, 0644 files) is
 * tightened the first time a command runs, with a notice when others could in fact reach it (it
 * sits under folders they may enter); under a folder closed to them it is tightened quietly.
 */
import { chmodSync, lstatSync, mkdir, mkdirSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';

export const PRIVATE_DIR_MODE = 0o700;
export const PRIVATE_FILE_MODE = 0o600;

/** `mkdir -p`, every folder it creates private. */
export function mkdirPrivateSync(dir: string): void {
  mkdirSync(dir, { recursive: true, mode: PRIVATE_DIR_MODE });
}

/**
 * {@link mkdirPrivateSync}, asynchronously. With node:fs's callback, not node:fs/promises: every
 * command loads this module, and node:fs/promises brings Node's readline and stream modules to
 * compile (~4 ms of CPU under load, for `neo --help` too).
 */
export function mkdirPrivate(dir: string): Promise<void> {
  return new Promise((done, fail) => {
    mkdir(dir, { recursive: true, mode: PRIVATE_DIR_MODE }, (error) => (error ? fail(error) : done()));
  });
}

/**
 * Closes an existing NEO_HOME that others can read: the folder and everything in it lose their
 * group and other bits (links are not followed; the owner's bits, an executable bit included,
 * are kept). Returns a one-line notice when it changed anything, undefined otherwise (no store
 * yet, or already private: the usual case costs one lstat).
 */
export function tightenStore(home: string): string | undefined {
  // NEO_HOME itself may be a link of the user's own (a store on another disk): its target is closed.
  const info = statSync(home, { throwIfNoEntry: false });
  if (info === undefined || !info.isDirectory() || (info.mode & 0o077) === 0) return undefined;
  if (typeof process.getuid === 'function' && info.uid !== process.getuid()) return undefined;
  const before = (info.mode & 0o777).toString(8);
  let changed = 0;
  const close = (path: string, mode: number) => {
    if ((mode & 0o077) === 0) return;
    try {
      chmodSync(path, mode & 0o7700 & ~0o077);
      changed++;
    } catch {
      // A file another process just removed, or one we cannot change: the folder above is closed.
    }
  };
  const walk = (dir: string) => {
    let names: string[];
    try {
      names = readdirSync(dir);
    } catch {
      return;
    }
    for (const name of names) {
      const path = join(dir, name);
      const entry = lstatSync(path, { throwIfNoEntry: false });
      if (entry === undefined || entry.isSymbolicLink()) continue;
      close(path, entry.mode);
      if (entry.isDirectory()) walk(path);
    }
  };
  // The folder first: once it is 0700, nothing below it is reachable while the rest is walked.
  const exposed = reachableByOthers(dirname(resolve(home)));
  close(home, info.mode);
  walk(home);
  // Under a folder others cannot enter, nobody else could read it: closed quietly.
  if (!exposed) return undefined;
  const inside = changed - 1 === 0 ? '' : ` and the ${changed - 1} files and folders in it`;
  return `neo: ${home} was readable by other users (mode ${before}); made it${inside} private (0700/0600)`;
}

/** Whether other users (group or others) can enter `dir`: every folder from the root down lets them through. */
function reachableByOthers(dir: string): boolean {
  for (let current = dir; ; current = dirname(current)) {
    const info = statSync(current, { throwIfNoEntry: false });
    if (info === undefined || (info.mode & 0o011) === 0) return false;
    if (dirname(current) === current) return true;
  }
}
