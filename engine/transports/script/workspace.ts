import { lstat, mkdir, rename, rm } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import {
  confinePath,
  movedProtected,
  pinProtected,
  protectedInside,
  readOnlyBindHolding,
  type SandboxBind,
  type SandboxKind,
} from '../../execution/index.js';
import { readRegularFile, writeRegularFile } from '../../util/regular-file.js';

/** The largest file `edit` reads (a source file; a script that edits more is wrong). */
const MAX_EDITED = 16 * 1024 * 1024;

/** A tool call that failed the way an agent's tool fails: reported as an error tool_result. */
export class ToolFailure extends Error {}

/**
 * The working tree the script acts on. Every path is resolved inside it (engine/execution
 * confinePath); a path that leaves it, lexically (`../x`, `/etc/x`) or through a symlink, or runs
 * through a dangling symlink, is refused before anything is touched, whatever the posture.
 */
export class Workspace {
  readonly root: string;
  readonly #sandbox: { kind: SandboxKind; binds: readonly SandboxBind[]; hide?: readonly string[] } | undefined;

  /** `sandbox`: the session's; what it shows read-only (a project layer, neo's install) is not written here either. */
  constructor(root: string, sandbox?: { kind: SandboxKind; binds: readonly SandboxBind[]; hide?: readonly string[] }) {
    this.root = resolve(root);
    this.#sandbox = sandbox;
    pinProtected(sandbox, this.root);
  }

  /** `file` (a real path in the tree), unless the session's sandbox shows it read-only. */
  #writable(file: string, path: string): string {
    const bind = readOnlyBindHolding(this.#sandbox, file);
    if (bind !== undefined) throw new ToolFailure(`refused: ${path} is read-only or hidden in its sandbox (${bind})`);
    const moved = movedProtected(this.#sandbox, this.root, file);
    if (moved !== undefined)
      throw new ToolFailure(
        `refused: ${path} lies in ${moved}, moved there by a rename; it is read-only or hidden in its sandbox`,
      );
    return file;
  }

  /**
   * Where `path` lives (its folder's real path and its own name: a delete or rename acts on a
   * symlink, not its target), or a ToolFailure when it, or what it points to, escapes the tree.
   */
  async resolve(path: string): Promise<string> {
    return (await this.#confine(path)).entry;
  }

  /**
   * The real file `path` is (a link in the tree followed to what it names in the tree), for a
   * write or an edit: opened without following a last link (writeRegularFile, readRegularFile), so
   * a link swapped in after this check is refused rather than followed out of the tree.
   */
  async #target(path: string): Promise<string> {
    return (await this.#confine(path)).path;
  }

  async #confine(path: string): Promise<{ path: string; entry: string }> {
    if (resolve(this.root, path) === this.root) throw new ToolFailure(`refused: ${path} is the working tree itself`);
    const confined = await confinePath(this.root, path, { refuseGit: false });
    if ('problem' in confined) throw new ToolFailure(`refused: ${confined.problem.reason}`);
    return confined;
  }

  /** A folder inside the working tree (the tree itself allowed), for a command's cwd. */
  async resolveDir(path: string | undefined): Promise<string> {
    if (path === undefined || path === '' || path === '.') return this.root;
    return this.resolve(path);
  }

  async write(path: string, content: string): Promise<string> {
    const file = this.#writable(await this.#target(path), path);
    await mkdir(dirname(file), { recursive: true });
    const refused = writeRegularFile(file, content);
    if (refused !== undefined) throw new ToolFailure(`write ${path}: is ${refused}, not a regular file`);
    return `wrote ${path} (${Buffer.byteLength(content)} bytes)`;
  }

  async edit(path: string, search: string, replace: string, all: boolean): Promise<string> {
    const file = this.#writable(await this.#target(path), path);
    const text = readExisting(file, path);
    const count = text.split(search).length - 1;
    if (count === 0) throw new ToolFailure(`edit ${path}: the search text was not found`);
    if (count > 1 && !all)
      throw new ToolFailure(
        `edit ${path}: the search text occurs ${count} times; add context to make it unique, or set all: true`,
      );
    const next = all ? text.split(search).join(replace) : text.replace(search, () => replace);
    const refused = writeRegularFile(file, next);
    if (refused !== undefined) throw new ToolFailure(`edit ${path}: is ${refused}, not a regular file`);
    return `edited ${path} (${all ? count : 1} replacement${(all ? count : 1) === 1 ? '' : 's'})`;
  }

  async delete(path: string): Promise<string> {
    const file = this.#writable(await this.resolve(path), path);
    const info = await lstat(file).catch(() => undefined);
    if (info === undefined) throw new ToolFailure(`delete ${path}: no such file`);
    if (info.isDirectory()) throw new ToolFailure(`delete ${path}: is a folder; delete its files one by one`);
    await rm(file);
    return `deleted ${path}`;
  }

  async rename(from: string, to: string): Promise<string> {
    const source = this.#writable(await this.resolve(from), from);
    const target = this.#writable(await this.resolve(to), to);
    for (const [file, path] of [
      [source, from],
      [target, to],
    ] as const) {
      const held = protectedInside(this.#sandbox, file);
      if (held !== undefined)
        throw new ToolFailure(`refused: ${path} holds ${held}, which is read-only or hidden in its sandbox`);
    }
    if ((await lstat(source).catch(() => undefined)) === undefined)
      throw new ToolFailure(`rename ${from}: no such file`);
    await mkdir(dirname(target), { recursive: true });
    await rename(source, target);
    return `renamed ${from} to ${to}`;
  }
}

function readExisting(file: string, path: string): string {
  const bytes = readRegularFile(file, MAX_EDITED, { noFollow: true });
  if (bytes === 'missing') throw new ToolFailure(`edit ${path}: no such file`);
  if (bytes === undefined)
    throw new ToolFailure(
      `edit ${path}: not a regular file of at most ${MAX_EDITED / (1024 * 1024)} MiB, or unreadable`,
    );
  return bytes.toString('utf8');
}
