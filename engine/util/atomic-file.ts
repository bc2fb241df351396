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
import { open, readFile, rename, rm, mkdir } from 'node:fs/promises';
import { dirname } from 'node:path';
import { randomBytes } from 'node:crypto';

/**
 * Replaces `path` atomically: write a sibling temp file, fsync it, rename over the target.
 * A reader sees either the old content or the new, never a torn file.
 */
export async function writeFileAtomic(path: string, content: string | Uint8Array): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  const temp = tempPathFor(path);
  const handle = await open(temp, 'w');
  try {
    await handle.writeFile(content);
    await handle.sync();
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
export function writeFileAtomicSync(path: string, content: string | Uint8Array): void {
  mkdirSync(dirname(path), { recursive: true });
  const temp = tempPathFor(path);
  const fd = openSync(temp, 'w');
  try {
    writeFileSync(fd, content);
    fsyncSync(fd);
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
 * The same atomic replace, split: the temp file is written now (so a full disk or a missing
 * permission throws here), and the returned promise is its fsync and rename, done on the
 * thread pool while the caller goes on. Whoever depends on the file waits for the promise.
 */
export function beginWriteFileAtomic(path: string, content: string | Uint8Array): Promise<void> {
  mkdirSync(dirname(path), { recursive: true });
  const temp = tempPathFor(path);
  const fd = openSync(temp, 'w');
  try {
    writeFileSync(fd, content);
  } catch (error) {
    closeSync(fd);
    rmSync(temp, { force: true });
    throw error;
  }
  const synced = new Promise<void>((resolve, reject) =>
    fsync(fd, (error) => {
      closeSync(fd);
      if (error) reject(error);
      else resolve();
    }),
  );
  return synced
    .then(() => rename(temp, path))
    .catch(async (error: unknown) => {
      await rm(temp, { force: true });
      throw error;
    });
}

/** Writes `value` as pretty JSON atomically. */
export function writeJsonAtomic(path: string, value: unknown): Promise<void> {
  return writeFileAtomic(path, jsonText(value));
}

/** {@link writeJsonAtomic}, begun now and finished in the background (see {@link beginWriteFileAtomic}). */
export function beginWriteJsonAtomic(path: string, value: unknown): Promise<void> {
  return beginWriteFileAtomic(path, jsonText(value));
}

/** {@link writeJsonAtomic}, synchronously (see {@link writeFileAtomicSync}). */
export function writeJsonAtomicSync(path: string, value: unknown): void {
  writeFileAtomicSync(path, jsonText(value));
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
