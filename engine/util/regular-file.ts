import { closeSync, constants, fstatSync, openSync, readSync, type Stats } from 'node:fs';

/**
 * A small regular file's bytes; `missing` when there is none; undefined for anything else — not a
 * regular file, larger than `maxBytes` (or grown past its size while read), unreadable. Opened
 * non-blocking and checked on the descriptor: a named pipe planted where a file is expected (a
 * confined step can write a checkout) is refused at once instead of waiting for a writer, and a
 * swap between a check and the open cannot make the read block.
 */
export function readRegularFile(path: string, maxBytes: number): Buffer | 'missing' | undefined {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ENOENT' ? 'missing' : undefined;
  }
  try {
    const info = fstatSync(fd);
    if (!info.isFile() || info.size > maxBytes) return undefined;
    const buffer = Buffer.alloc(info.size + 1);
    const read = readSync(fd, buffer, 0, buffer.length, 0);
    return read > info.size ? undefined : buffer.subarray(0, read);
  } catch {
    return undefined;
  } finally {
    closeSync(fd);
  }
}

/** What an entry that is not a regular file is, for an error that names it. */
export function describeNonFile(info: Stats): string {
  if (info.isFIFO()) return 'a named pipe (FIFO)';
  if (info.isCharacterDevice()) return 'a character device';
  if (info.isBlockDevice()) return 'a block device';
  if (info.isSocket()) return 'a socket';
  if (info.isDirectory()) return 'a folder';
  return 'not a regular file';
}
