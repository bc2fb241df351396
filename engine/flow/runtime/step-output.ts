/**
 * A run step's `$NEO_OUTPUT`: a file under NEO_HOME/io, the one thing of NEO_HOME a confined step
 * sees (its own fresh folder, bound read-write alone; the run's folder is never in reach). An
 * unconfined step (`sandbox: none`, which can write wherever the user can) gets a fresh name in
 * its run's folder there instead: no folder made and removed per execution (on a journalled
 * file system each a synchronous metadata write, ~1 ms a step). neo reads it back once, as data:
 * without following a link, only when it is a regular file with a single name, at most
 * {@link MAX_OUTPUT_BYTES}; then it goes. What the step put there is evidence of what it did,
 * never a path neo follows to a file of the host.
 */
import { closeSync, constants, fstatSync, lstatSync, mkdtempSync, openSync, readSync, rmSync } from 'node:fs';
import { readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { SandboxBind } from '../../execution/index.js';
import { mkdirPrivateSync } from '../../util/private-store.js';
import type { StepError } from '../core/state.js';

/** The most a step's output file may hold. */
export const MAX_OUTPUT_BYTES = 1024 * 1024;

/** One execution's output file and the folder it lies in. */
export interface StepOutputBox {
  /** The file the step writes (`$NEO_OUTPUT`). */
  file: string;
  /** Its folder: the bind a confined step gets. */
  bind: SandboxBind;
  readonly dir: string;
  readonly ino: number;
  /** The folder is the run's, shared by its unconfined executions: only the file goes after. */
  readonly shared: boolean;
}

/** Each run's folder for its unconfined executions, by NEO_HOME and run id (this process's runs). */
const runFolders = new Map<string, { dir: string; ino: number }>();
let named = 0;

/**
 * The output file of one execution. Confined: in a fresh, private folder of its own (mkdtemp: a
 * name nobody could have planted). Unconfined: a new name in the run's folder (made once, the
 * same way). Both folders are named after the run so a resume or `neo flow clean` can sweep
 * what a killed run left.
 */
export function openStepOutput(home: string, runId: string, confined: boolean): StepOutputBox {
  if (confined) {
    const dir = freshFolder(home, runId);
    return { file: join(dir, 'output'), bind: { path: dir, write: true }, dir, ino: lstatSync(dir).ino, shared: false };
  }
  const key = `${home}\0${runId}`;
  let folder = runFolders.get(key);
  // Still the folder made (an unconfined step could have removed or replaced it): else a new one.
  const now = folder === undefined ? undefined : lstatSync(folder.dir, { throwIfNoEntry: false });
  if (folder === undefined || now === undefined || !now.isDirectory() || now.ino !== folder.ino) {
    const dir = freshFolder(home, runId);
    folder = { dir, ino: lstatSync(dir).ino };
    runFolders.set(key, folder);
  }
  const file = join(folder.dir, `output-${++named}`);
  return { file, bind: { path: folder.dir, write: true }, ...folder, shared: true };
}

/**
 * Removes the run's folder of unconfined outputs (its end: no execution of it is left). One
 * that cannot be removed is left to `neo flow clean`, as a killed run's is.
 */
export function closeStepOutputs(home: string, runId: string): void {
  const key = `${home}\0${runId}`;
  const folder = runFolders.get(key);
  runFolders.delete(key);
  try {
    if (folder !== undefined && lstatSync(folder.dir, { throwIfNoEntry: false })?.ino === folder.ino)
      rmSync(folder.dir, { recursive: true, force: true });
  } catch {
    // swept later by name
  }
}

function freshFolder(home: string, runId: string): string {
  const io = ioDir(home);
  mkdirPrivateSync(io);
  return mkdtempSync(join(io, `${runId}-`));
}

/** Where every execution's output folder lives (NEO_HOME, hidden from every sandbox). */
export function ioDir(home: string): string {
  return join(home, 'io');
}

/** Removes the output folders of a run and its sub-flows (`<runId>-…`, `<runId>.<step>…-…`): none is in use. */
export async function removeRunOutputs(home: string, runId: string): Promise<void> {
  const names = await readdir(ioDir(home)).catch(() => [] as string[]);
  const own = names.filter((name) => name.startsWith(`${runId}-`) || name.startsWith(`${runId}.`));
  await Promise.all(own.map((name) => rm(join(ioDir(home), name), { recursive: true, force: true })));
}

/**
 * The `key=value` lines of the step's output file (none when it wrote none), or the error that
 * fails the step: a link, a FIFO, a socket, a folder, a hard link to another file, or a file past
 * the cap. The file is removed in every case, its own folder with it (links inside are removed,
 * never followed); in a replaced folder nothing is touched.
 */
export function readStepOutput(box: StepOutputBox): { outputs: Record<string, string> } | { error: StepError } {
  // The folder itself must still be the one made (an unconfined step could swap in a link).
  const folder = lstatSync(box.dir, { throwIfNoEntry: false });
  const kept = folder !== undefined && folder.isDirectory() && folder.ino === box.ino;
  try {
    const text = kept ? readOnce(box) : invalid('lies in a folder that was replaced');
    return typeof text === 'string' ? { outputs: parseOutputs(text) } : { error: text };
  } finally {
    if (!box.shared) rmSync(box.dir, { recursive: true, force: true });
    else if (kept) rmSync(box.file, { recursive: true, force: true });
  }
}

function readOnce(box: StepOutputBox): string | StepError {
  let fd: number;
  try {
    // O_NONBLOCK: a FIFO opens at once instead of waiting for a writer; fstat then refuses it.
    fd = openSync(box.file, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return '';
    return invalid(code === 'ELOOP' ? 'is not a regular file (a symbolic link)' : `cannot be read (${code})`);
  }
  try {
    const info = fstatSync(fd);
    if (!info.isFile()) return invalid(`is not a regular file (${kindOf(info)})`);
    if (info.nlink !== 1) return invalid('is not a regular file of its own (it has another name: a hard link)');
    // Read one byte past the cap: a file still growing is measured by what was read, not by the stat.
    const buffer = Buffer.alloc(Math.min(info.size, MAX_OUTPUT_BYTES) + 1);
    let length = 0;
    for (;;) {
      const read = readSync(fd, buffer, length, buffer.length - length, null);
      if (read === 0) break;
      length += read;
      if (length === buffer.length) break;
    }
    if (length > MAX_OUTPUT_BYTES || info.size > MAX_OUTPUT_BYTES)
      return {
        code: 'FLOW_OUTPUT_INVALID',
        message: `$NEO_OUTPUT holds more than ${MAX_OUTPUT_BYTES / (1024 * 1024)} MB`,
        hint: 'write small `key=value` lines to $NEO_OUTPUT; leave large results in a file of the workspace and name it',
      };
    return buffer.toString('utf8', 0, length);
  } finally {
    closeSync(fd);
  }
}

/** `key=value` lines become outputs; anything else is ignored. */
export function parseOutputs(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const line of text.split('\n')) {
    const match = /^([A-Za-z_][A-Za-z0-9_-]*)=(.*)$/.exec(line);
    if (match) out[match[1]!] = match[2]!;
  }
  return out;
}

function invalid(what: string): StepError {
  return {
    code: 'FLOW_OUTPUT_INVALID',
    message: `$NEO_OUTPUT ${what}: neo reads only a regular file the step wrote there`,
    hint: 'write `key=value` lines to $NEO_OUTPUT itself (`echo key=value >> "$NEO_OUTPUT"`); neo never follows a link or opens a device there',
  };
}

function kindOf(info: { isDirectory(): boolean; isFIFO(): boolean; isSocket(): boolean }): string {
  return info.isDirectory() ? 'a folder' : info.isFIFO() ? 'a FIFO' : info.isSocket() ? 'a socket' : 'a device';
}
