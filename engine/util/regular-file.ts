import { closeSync, constants, fstatSync, ftruncateSync, openSync, readSync, writeSync, type Stats } from 'node:fs';

/**
 * A small regular file's bytes; `missing` when there is none; undefined for anything else — not a
 * regular file, larger than `maxBytes` (or grown past its size while read), unreadable. Opened
 * non-blocking and checked on the descriptor: a named pipe planted where a file is expected (a
 * confined step can write a checkout) is refused at once instead of waiting for a writer, and a
 * swap between a check and the open cannot make the read block. With `noFollow`, a last component
 * that is a link is refused too (a path checked to stay in a tree, then swapped for a link).
 */
export function readRegularFile(
  path: string,
  maxBytes: number,
  options: { noFollow?: boolean } = {},
): Buffer | 'missing' | undefined {
  let fd: number;
  try {
    fd = openSync(
      path,
      constants.O_RDONLY | constants.O_NONBLOCK | (options.noFollow === true ? constants.O_NOFOLLOW : 0),
    );
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

/**
 * Writes `data` as the whole of the regular file at `path` (created when missing), never through
 * a last component that is a link, never into anything but a regular file: opened non-blocking and
 * checked on the descriptor before it is truncated, so a named pipe (which would wait for a
 * reader), a device or a link swapped in after a check is refused. Returns what was there instead
 * (`describeNonFile`, or the error's code), undefined when written.
 */
export function writeRegularFile(path: string, data: string | Buffer): string | undefined {
  let fd: number;
  try {
    fd = openSync(path, constants.O_WRONLY | constants.O_CREAT | constants.O_NOFOLLOW | constants.O_NONBLOCK, 0o666);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    // ELOOP: a link; ENXIO: a pipe no one reads.
    return code === 'ELOOP' ? 'a link' : code === 'ENXIO' ? 'a named pipe (FIFO)' : (code ?? String(error));
  }
  try {
    const info = fstatSync(fd);
    if (!info.isFile()) return describeNonFile(info);
    ftruncateSync(fd, 0);
    const bytes = typeof data === 'string' ? Buffer.from(data) : data;
    for (let at = 0; at < bytes.length;) at += writeSync(fd, bytes, at, bytes.length - at, at);
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
