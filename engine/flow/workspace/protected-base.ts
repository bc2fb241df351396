import { createHash } from 'node:crypto';
import { copyFile, lstat, mkdir, readdir, readFile, readlink, rm, writeFile } from 'node:fs/promises';
import { mkdirPrivate, PRIVATE_FILE_MODE } from '../../util/private-store.js';
import { dirname, join, relative, sep } from 'node:path';
import picomatch from 'picomatch';
import { spawnProcess } from '../../execution/index.js';
import { NeoError } from '../../util/errors.js';

/** Folders never walked for protected paths (unless a glob names them). */
const SKIPPED = ['.git', 'node_modules'];

/**
 * The protected paths of an agent step as they were at its first start: a copy of every file
 * matching the step's `protect:` globs, kept in the run's folder (so a resumed step is judged
 * against the same originals). The gate runs on a fresh copy of the step's result with these
 * restored — a weakened or deleted test is judged by the original — and `changes()` names every
 * protected path the agent edited, added or deleted.
 */
export class ProtectedBase {
  readonly #root: string;
  readonly #dir: string;
  readonly #files: ReadonlyMap<string, string>;
  readonly #match: (path: string) => boolean;
  readonly #skip: readonly string[];

  private constructor(root: string, dir: string, files: Map<string, string>, globs: readonly string[]) {
    this.#root = root;
    this.#dir = dir;
    this.#files = files;
    this.#match = picomatch([...globs], { dot: true });
    this.#skip = SKIPPED.filter((name) => !globs.some((glob) => glob.includes(name)));
  }

  /** The base of unit `key` started at `startedAt`, recorded under `runDir` at the unit's first start. */
  static async open(options: {
    root: string;
    runDir: string;
    key: string;
    startedAt: string;
    globs: readonly string[];
  }): Promise<ProtectedBase> {
    const dir = join(options.runDir, 'protected', options.key.replace(/[^\w.-]/g, '_'));
    const manifest = join(dir, 'manifest.json');
    const recorded = await readManifest(manifest);
    if (recorded?.startedAt === options.startedAt)
      return new ProtectedBase(options.root, dir, new Map(Object.entries(recorded.files)), options.globs);
    const base = new ProtectedBase(options.root, dir, new Map(), options.globs);
    await rm(dir, { recursive: true, force: true });
    const files = new Map<string, string>();
    for (const path of await base.#walk(options.root)) {
      const content = await readFile(join(options.root, path));
      files.set(path, digest(content));
      // A copy under the run's folder in NEO_HOME: private, as the rest of the store.
      await mkdirPrivate(dirname(join(dir, 'files', path)));
      await writeFile(join(dir, 'files', path), content, { mode: PRIVATE_FILE_MODE });
    }
    await mkdirPrivate(dir);
    await writeFile(
      manifest,
      `${JSON.stringify({ startedAt: options.startedAt, files: Object.fromEntries(files) })}\n`,
      { mode: PRIVATE_FILE_MODE },
    );
    return new ProtectedBase(options.root, dir, files, options.globs);
  }

  /** Protected paths (relative to the workspace) that differ from the base now: edited, added or deleted. */
  async changes(tree = this.#root): Promise<string[]> {
    const now = new Map<string, string>();
    for (const path of await this.#walk(tree, true)) {
      const full = join(tree, path);
      const link = await lstat(full).then((s) => s.isSymbolicLink());
      now.set(path, link ? `symlink ${await readlink(full)}` : digest(await readFile(full)));
    }
    const changed = [...now].filter(([path, hash]) => this.#files.get(path) !== hash).map(([path]) => path);
    const deleted = [...this.#files.keys()].filter((path) => !now.has(path));
    return [...changed, ...deleted].sort();
  }

  /**
   * A fresh copy of the workspace as it is now, with every protected path as it was at the base
   * (an added one removed, a deleted one back). Reflinks where the filesystem has them (`cp
   * --reflink=auto`); never hard links, which a check writing in place would write through.
   * Git's metadata is not copied: the copy's `.git` leads to the workspace's.
   */
  async freshCopy(into: string): Promise<void> {
    await rm(into, { recursive: true, force: true });
    await mkdir(into, { recursive: true });
    const entries = (await readdir(this.#root)).filter((name) => name !== '.git');
    if (entries.length > 0) {
      const copied = await spawnProcess(['cp', '-a', '--reflink=auto', '-t', into, '--', ...entries], {
        cwd: this.#root,
        env: process.env,
        label: 'cp (gate copy)',
      }).result;
      if (copied.failed)
        throw new NeoError(
          'FLOW_GATE_COPY',
          `could not copy the workspace for the gate: ${copied.spawnError ?? copied.stderr.trim()}`,
        );
    }
    await linkGit(this.#root, into);
    for (const path of await this.#walk(into, true))
      if (!this.#files.has(path)) await rm(join(into, path), { force: true });
    for (const path of this.#files.keys()) {
      const target = join(into, path);
      await mkdir(dirname(target), { recursive: true });
      // Removed first: a symlink the agent put there must not be written through.
      await rm(target, { recursive: true, force: true });
      await copyFile(join(this.#dir, 'files', path), target);
    }
  }

  /** Protected regular files under `root` (and symlinks too, with `links`: never followed). */
  async #walk(root: string, links = false): Promise<string[]> {
    const out: string[] = [];
    const visit = async (dir: string): Promise<void> => {
      let entries;
      try {
        entries = await readdir(dir, { withFileTypes: true });
      } catch {
        return;
      }
      for (const entry of entries) {
        const full = join(dir, entry.name);
        const path = relative(root, full).split(sep).join('/');
        if (entry.isDirectory()) {
          if (!this.#skip.includes(entry.name)) await visit(full);
        } else if ((entry.isFile() || (links && entry.isSymbolicLink())) && this.#match(path)) out.push(path);
      }
    };
    await visit(root);
    return out.sort();
  }
}

/** The copy's `.git`: the worktree's own gitfile, or one that leads to the checkout's git dir. */
async function linkGit(root: string, into: string): Promise<void> {
  const entries = await readdir(root, { withFileTypes: true });
  const git = entries.find((e) => e.name === '.git');
  if (git === undefined) return;
  if (git.isDirectory()) await writeFile(join(into, '.git'), `gitdir: ${join(root, '.git')}\n`);
  else await copyFile(join(root, '.git'), join(into, '.git'));
}

function digest(content: Buffer): string {
  return createHash('sha256').update(content).digest('hex');
}

async function readManifest(file: string): Promise<{ startedAt: string; files: Record<string, string> } | undefined> {
  try {
    const value = JSON.parse(await readFile(file, 'utf8')) as { startedAt?: unknown; files?: unknown };
    return typeof value.startedAt === 'string' && typeof value.files === 'object' && value.files !== null
      ? { startedAt: value.startedAt, files: value.files as Record<string, string> }
      : undefined;
  } catch {
    return undefined;
  }
}
