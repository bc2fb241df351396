/**
 * File I/O for neo's own file tools that holds on to what the kernel actually opened. The tools
 * check a path (paths.ts) and then act on it; between the two, the agent's own background shell
 * can swap a folder of the workspace for a link to the user's home, and the open would follow
 * it. So every open here is proved afterwards, on the open descriptor (`/proc/self/fd/N` names
 * what was really opened), and a write goes through its folder's descriptor: the temp file and
 * the rename land in the folder that was checked, wherever its path points by then.
 */
import { randomBytes } from 'node:crypto';
import { constants, existsSync } from 'node:fs';
import { mkdir, open, readlink, rename, rm, type FileHandle } from 'node:fs/promises';
import { basename, dirname, join, relative, sep } from 'node:path';
import { ToolInputError } from '../tool.js';

/** Where an open descriptor's target can be read back (Linux); elsewhere the path checks stand alone. */
const FD_DIR = '/proc/self/fd';
const provable = existsSync(FD_DIR);

const at = (handle: FileHandle) => join(FD_DIR, String(handle.fd));

/**
 * Opens `path` (flags as `open` takes them; by default for reading) and proves the opened file
 * lies inside `root`. A read is opened non-blocking and refuses a named pipe: the agent's own
 * `exec` can put one where it then reads or edits, and a blocking open waits in the thread pool —
 * which neo's own file I/O shares — for a writer that never comes.
 */
export async function openInside(
  root: string,
  path: string,
  flags: string | number = constants.O_RDONLY | constants.O_NONBLOCK,
): Promise<FileHandle> {
  const handle = await open(path, flags);
  try {
    if (typeof flags === 'number' && (flags & constants.O_NONBLOCK) !== 0 && (await handle.stat()).isFIFO())
      throw new ToolInputError(`${path} is a named pipe (FIFO); it is not read`);
    await proveInside(root, handle, path.startsWith(FD_DIR) ? undefined : path);
  } catch (error) {
    await handle.close();
    throw error;
  }
  return handle;
}

/**
 * Replaces (or creates) `path` inside `root` atomically — a temp file in its folder, then a rename
 * over it — with every step made through the folder's proven descriptor. Missing folders are made
 * one at a time the same way. `mode`: the permissions the new file gets (an edited file keeps its own).
 */
export async function writeInside(
  root: string,
  path: string,
  content: string | Uint8Array,
  mode?: number,
): Promise<void> {
  const folder = await folderInside(root, dirname(path));
  try {
    const name = basename(path);
    const temp = join(at(folder), `.${name}.neo-${randomBytes(6).toString('hex')}.tmp`);
    const file = await open(
      temp,
      constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW,
      mode ?? 0o666,
    );
    try {
      await file.writeFile(content);
      if (mode !== undefined) await file.chmod(mode);
      await file.sync();
    } finally {
      await file.close();
    }
    try {
      await rename(temp, join(at(folder), name));
    } catch (error) {
      await rm(temp, { force: true });
      throw error;
    }
  } finally {
    await folder.close();
  }
}

/** `dir` (a path inside `root`) opened and proven, the folders missing below its nearest existing one made. */
async function folderInside(root: string, dir: string): Promise<FileHandle> {
  const parts = relative(root, dir)
    .split(sep)
    .filter((p) => p !== '');
  if (parts.includes('..')) throw new ToolInputError(`refused: ${dir} is outside the working directory`);
  let folder = await openInside(root, root, constants.O_RDONLY | constants.O_DIRECTORY);
  let plain = root;
  try {
    for (const part of parts) {
      plain = join(plain, part);
      const next = provable ? join(at(folder), part) : plain;
      await mkdir(next).catch((error: NodeJS.ErrnoException) => {
        if (error.code !== 'EEXIST') throw error;
      });
      // The last component is never followed: a link where a folder should be is refused.
      const opened = await openInside(root, next, constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW);
      await folder.close();
      folder = opened;
    }
  } catch (error) {
    await folder.close();
    throw error;
  }
  return folder;
}

async function proveInside(root: string, handle: FileHandle, path: string | undefined): Promise<void> {
  if (!provable) return;
  const real = await readlink(at(handle));
  if (real !== root && !real.startsWith(root.endsWith(sep) ? root : root + sep))
    throw new ToolInputError(
      `refused: ${path ?? 'the path'} led to ${real}, outside the working directory (a folder on its way was swapped for a link)`,
    );
}
