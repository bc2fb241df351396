import {
  closeSync,
  fsync,
  fsyncSync,
  mkdirSync,
  openSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { open, readdir, readFile, rename, rm, mkdir } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { PRIVATE_DIR_MODE, PRIVATE_FILE_MODE } from './private-store.js';

/**
 * `private`: a store file under NEO_HOME (0600, any folder created 0700); else the umask decides
 * (a workspace file). `durable: false`: no fsync before the rename — for a copy neo never reads
 * back (a run's snapshot.json), which a power cut may leave empty but a crash never leaves torn.
 */
export interface WriteOptions {
  private?: boolean;
  durable?: boolean;
}

const dirMode = (o: WriteOptions) => (o.private ? { recursive: true, mode: PRIVATE_DIR_MODE } : { recursive: true });
const fileMode = (o: WriteOptions) => (o.private ? PRIVATE_FILE_MODE : 0o666);

/**
 * Replaces `path` atomically: write a sibling temp file, fsync it, rename over the target.
 * A reader sees either the old content or the new, never a torn file.
 */
export async function writeFileAtomic(
  path: string,
  content: string | Uint8Array,
  options: WriteOptions = {},
): Promise<void> {
  await mkdir(dirname(path), dirMode(options));
  const temp = tempPathFor(path);
  const handle = await open(temp, 'w', fileMode(options));
  try {
    await handle.writeFile(content);
    if (options.durable !== false) await handle.sync();
  } finally {
    await handle.close();
  }
  try {
    await rename(temp, path);
  } catch (error) {
    await rm(temp, { force: true });
    throw error;
  }
}

/**
 * The same atomic replace with synchronous calls: for a command's first and last writes, which
 * its caller waits for anyway and where six thread-pool round trips (mkdir, open, write, fsync,
 * close, rename) cost more than the work. Not for writes made while other work is in flight.
 */
export function writeFileAtomicSync(path: string, content: string | Uint8Array, options: WriteOptions = {}): void {
  mkdirSync(dirname(path), dirMode(options));
  const temp = tempPathFor(path);
  const fd = openSync(temp, 'w', fileMode(options));
  try {
    writeFileSync(fd, content);
    if (options.durable !== false) fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  try {
    renameSync(temp, path);
  } catch (error) {
    rmSync(temp, { force: true });
    throw error;
  }
}

/**
 * The same atomic replace for a file that must exist from now on (a new run's record): the temp
 * file is written and renamed into place now, so a process killed a moment later still leaves
 * the whole file and never a temp file alone; the returned promise is its fsync, done on the
 * thread pool while the caller goes on. A full disk or a missing permission throws here.
 */
export function beginWriteFileAtomic(
  path: string,
  content: string | Uint8Array,
  options: WriteOptions = {},
): Promise<void> {
  mkdirSync(dirname(path), dirMode(options));
  const temp = tempPathFor(path);
  const fd = openSync(temp, 'w', fileMode(options));
  try {
    writeFileSync(fd, content);
    renameSync(temp, path);
  } catch (error) {
    closeSync(fd);
    rmSync(temp, { force: true });
    throw error;
  }
  return new Promise<void>((resolve, reject) =>
    fsync(fd, (error) => {
      closeSync(fd);
      if (error) reject(error);
      else resolve();
    }),
  );
}

/**
 * Removes the temp files of atomic writes whose writer died between open and rename (their
 * names carry the writer's pid). A writer that still runs (`writerRuns`: the process module's
 * answer, zombies excluded) keeps its file. Returns what it removed.
 */
export async function sweepTempFiles(dir: string, writerRuns: (pid: number) => boolean): Promise<string[]> {
  let names: string[];
  try {
    names = await readdir(dir);
  } catch {
    return [];
  }
  const removed: string[] = [];
  for (const name of names) {
    const match = TEMP_NAME.exec(name);
    if (match === null || writerRuns(Number(match[1]))) continue;
    await rm(join(dir, name), { force: true });
    removed.push(name);
  }
  return removed;
}

/** `<file>.<pid>.<8 hex>.tmp`, as {@link tempPathFor} names them. */
const TEMP_NAME = /\.(\d+)\.[0-9a-f]{8}\.tmp$/;

/** Writes `value` as pretty JSON atomically: a store file, private unless `private: false`. */
export function writeJsonAtomic(
  path: string,
  value: unknown,
  options: WriteOptions = { private: true },
): Promise<void> {
  return writeFileAtomic(path, jsonText(value), options);
}

/** {@link writeJsonAtomic}, begun now and finished in the background (see {@link beginWriteFileAtomic}). */
export function beginWriteJsonAtomic(path: string, value: unknown): Promise<void> {
  return beginWriteFileAtomic(path, jsonText(value), { private: true });
}

/** {@link writeJsonAtomic}, synchronously (see {@link writeFileAtomicSync}). */
export function writeJsonAtomicSync(path: string, value: unknown, options: WriteOptions = { private: true }): void {
  writeFileAtomicSync(path, jsonText(value), options);
}

function jsonText(value: unknown): string {
  return `${JSON.stringify(value, null, 2)}\n`;
}

function tempPathFor(path: string): string {
  return `${path}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
}

/** Reads and parses a JSON file; a missing or unparsable file is `null`, never a throw. */
export async function readJsonOrNull<T = unknown>(path: string): Promise<T | null> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch {
    return null;
  }
  return parseOrNull<T>(text);
}

/** {@link readJsonOrNull}, synchronously: for a small local file a command needs before anything else. */
export function readJsonOrNullSync<T = unknown>(path: string): T | null {
  // Asked first, so a missing file (the common case for a cache) costs no thrown error.
  if (statSync(path, { throwIfNoEntry: false }) === undefined) return null;
  try {
    return parseOrNull<T>(readFileSync(path, 'utf8'));
  } catch {
    return null;
  }
}

function parseOrNull<T>(text: string): T | null {
  try {
    return JSON.parse(text) as T;
  } catch {
    return null;
  }
}
