import { createHash } from 'node:crypto';
import { constants } from 'node:fs';
import { lstat, mkdir, open, readdir, readFile, readlink, rm, symlink, writeFile } from 'node:fs/promises';
import { dirname, join, relative, sep } from 'node:path';
import picomatch from 'picomatch';
import { NeoError } from '../../util/errors.js';
import { mkdirPrivate, PRIVATE_FILE_MODE } from '../../util/private-store.js';
import { macMatches, macOf, storeKey } from '../../util/store-key.js';
import { DEPENDENCY_FOLDER_NAMES, isDependencyFolder } from './dependencies.js';

/** Folders never walked for protected paths (unless a glob names them): git's, and dependency folders. */
const SKIPPED = ['.git', ...DEPENDENCY_FOLDER_NAMES];

/** What the manifest's MAC covers besides its body: the kind of record. */
const MANIFEST_KIND = 'neo protected originals v1';

/** One recorded original: a file's digest and mode, or a link's target (`sha256` is then `symlink <target>`). */
interface Original {
  sha256: string;
  /** Its permission bits (an executable test script stays executable). */
  mode: number;
  link?: string;
}

interface Manifest {
  scope: string;
  startedAt: string;
  files: Record<string, Original>;
}

/**
 * The protected paths of an agent step as they were at its first start: a copy of every file
 * matching the step's `protect:` globs, kept in a private folder no sandbox sees, with a manifest
 * of their digests authenticated by the store key (so a resumed step is judged against the same
 * originals, and one changed behind neo's back fails the step, FLOW_PROTECTED_TAMPERED).
 * `restoreInto` puts them into a gate's fresh tree — a weakened or deleted test is judged by the
 * original, an added one is removed — and `changes()` names every protected path the agent
 * edited, added or deleted. No link is ever followed, reading or writing.
 */
export class ProtectedBase {
  readonly #root: string;
  readonly #dir: string;
  readonly #manifest: Manifest;
  readonly #match: (path: string) => boolean;
  readonly #skip: readonly string[];
  /** A virtualenv by its marker, whatever its name, unless a glob names a `pyvenv.cfg`. */
  readonly #skipVenvs: boolean;

  private constructor(root: string, dir: string, manifest: Manifest, globs: readonly string[]) {
    this.#root = root;
    this.#dir = dir;
    this.#manifest = manifest;
    this.#match = picomatch([...globs], { dot: true });
    this.#skip = SKIPPED.filter((name) => !globs.some((glob) => glob.includes(name)));
    this.#skipVenvs = !globs.some((glob) => glob.includes('pyvenv.cfg'));
  }

  /**
   * The base of the unit `scope` started at `startedAt`, kept in `dir` (private): recorded now
   * at the unit's first start, read back (and authenticated) when it is resumed.
   */
  static async open(options: {
    root: string;
    dir: string;
    home: string;
    scope: string;
    startedAt: string;
    globs: readonly string[];
  }): Promise<ProtectedBase> {
    const { dir, scope, startedAt, globs } = options;
    const key = storeKey(options.home);
    const file = join(dir, 'manifest.json');
    const recorded = await readManifest(file, key);
    if (recorded !== undefined && recorded.scope === scope && recorded.startedAt === startedAt)
      return new ProtectedBase(options.root, dir, recorded, globs);
    const base = new ProtectedBase(options.root, dir, { scope, startedAt, files: {} }, globs);
    await rm(dir, { recursive: true, force: true });
    await mkdirPrivate(join(dir, 'files'));
    const files: Record<string, Original> = {};
    for (const path of await base.#walk(options.root, true)) {
      const full = join(options.root, path);
      const info = await lstat(full);
      if (info.isSymbolicLink()) {
        const link = await readlink(full);
        files[path] = { sha256: `symlink ${link}`, mode: 0, link };
        continue;
      }
      const content = await readNoFollow(full);
      files[path] = { sha256: digest(content), mode: info.mode & 0o777 };
      await mkdirPrivate(dirname(join(dir, 'files', path)));
      await writeFile(join(dir, 'files', path), content, { mode: PRIVATE_FILE_MODE, flag: 'wx' });
    }
    const manifest: Manifest = { scope, startedAt, files };
    const body = JSON.stringify(manifest);
    await writeFile(file, `${JSON.stringify({ body, mac: macOf(key, MANIFEST_KIND, body) })}\n`, {
      mode: PRIVATE_FILE_MODE,
    });
    return new ProtectedBase(options.root, dir, manifest, globs);
  }

  /** Whether a path (relative to the workspace) is protected. */
  matches(path: string): boolean {
    return this.#match(path);
  }

  /** Protected paths (relative to the workspace) that differ from the base now: edited, added or deleted. */
  async changes(tree = this.#root): Promise<string[]> {
    const now = new Map<string, string>();
    for (const path of await this.#walk(tree, true)) {
      const full = join(tree, path);
      const link = await lstat(full).then((s) => s.isSymbolicLink());
      now.set(path, link ? `symlink ${await readlink(full)}` : digest(await readNoFollow(full)));
    }
    const files = this.#manifest.files;
    const changed = [...now].filter(([path, hash]) => files[path]?.sha256 !== hash).map(([path]) => path);
    const deleted = Object.keys(files).filter((path) => !now.has(path));
    return [...changed, ...deleted].sort();
  }

  /**
   * Puts the protected paths of a fresh tree back as they were at the base: `present` (the
   * tree's files) that match and were not there are removed, and so is the cached bytecode of a
   * protected `.py` (Python loads an unchecked-hash `__pycache__/<name>.*.pyc`, PEP 552, whatever
   * the source says: an agent's compiled copy of a protected test ran in its place); every original is written from
   * the private copy after its digest is checked against the manifest. A link or file where a
   * folder should be is removed, never followed. Returns the protected paths the tree now holds.
   */
  async restoreInto(tree: string, present: readonly string[]): Promise<string[]> {
    const files = this.#manifest.files;
    const bytecode = bytecodeOf(Object.keys(files));
    for (const path of present)
      if ((this.#match(path) && !Object.hasOwn(files, path)) || bytecode(path))
        await rm(join(tree, path), { force: true });
    for (const [path, original] of Object.entries(files)) {
      if (original.link !== undefined) {
        await symlink(original.link, await clearInside(tree, path));
        continue;
      }
      const content = await readNoFollow(join(this.#dir, 'files', path)).catch(() => undefined);
      if (content === undefined || digest(content) !== original.sha256)
        throw tampered(
          `the recorded original of ${path} is ${content === undefined ? 'gone' : 'not the one recorded'}`,
        );
      await writeNew(await clearInside(tree, path), content, original.mode);
    }
    return Object.keys(files);
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
          if (!this.#skip.includes(entry.name) && !(this.#skipVenvs && isDependencyFolder(full))) await visit(full);
        } else if ((entry.isFile() || (links && entry.isSymbolicLink())) && this.#match(path)) out.push(path);
      }
    };
    await visit(root);
    return out.sort();
  }
}

/**
 * Makes `path` under `root` free for a new entry: every folder on the way that is not a real
 * folder (a link the agent planted, a file) is replaced by one, and whatever is at the path
 * itself is removed (a link as a link). Returns the full path.
 */
async function clearInside(root: string, path: string): Promise<string> {
  const parts = path.split('/');
  if (parts.some((part) => part === '' || part === '.' || part === '..'))
    throw tampered(`the manifest names ${JSON.stringify(path)}, which is not a path inside the workspace`);
  let dir = root;
  for (const part of parts.slice(0, -1)) {
    dir = join(dir, part);
    const info = await lstat(dir).catch(() => undefined);
    if (info?.isDirectory()) continue;
    if (info !== undefined) await rm(dir, { force: true });
    await mkdir(dir);
  }
  const target = join(root, path);
  await rm(target, { recursive: true, force: true });
  return target;
}

/** Creates `target` as a new regular file, exclusively, never through a link. */
async function writeNew(target: string, content: Buffer, mode: number): Promise<void> {
  const handle = await open(
    target,
    constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW,
    mode,
  );
  try {
    await handle.writeFile(content);
    await handle.chmod(mode);
  } finally {
    await handle.close();
  }
}

/** A file's content, refused (ELOOP) when the path is a link. */
async function readNoFollow(path: string): Promise<Buffer> {
  const handle = await open(path, constants.O_RDONLY | constants.O_NOFOLLOW);
  try {
    return await handle.readFile();
  } finally {
    await handle.close();
  }
}

function digest(content: Buffer): string {
  return createHash('sha256').update(content).digest('hex');
}

function tampered(why: string): NeoError {
  return new NeoError('FLOW_PROTECTED_TAMPERED', `the step's protected originals were changed: ${why}`, {
    hint: "something outside neo changed NEO_HOME's gate records; rerun the step from a fresh start (`neo flow resume <run> --rerun <step>`) and find out what wrote there",
  });
}

async function readManifest(file: string, key: Buffer): Promise<Manifest | undefined> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch {
    return undefined;
  }
  let value: { body?: unknown; mac?: unknown };
  try {
    value = JSON.parse(text) as { body?: unknown; mac?: unknown };
  } catch {
    throw tampered(`${file} is not a manifest neo wrote`);
  }
  if (typeof value.body !== 'string' || !macMatches(key, value.mac, MANIFEST_KIND, value.body))
    throw tampered(`${file} does not carry neo's MAC`);
  return JSON.parse(value.body) as Manifest;
}

/**
 * Whether a tree path is Python's cached bytecode for one of `protectedPaths`: `<dir>/__pycache__/<stem>.<tag>.pyc`
 * for a protected `<dir>/<stem>.py` (a cache: removing one of another module that shares the stem costs a compile).
 */
function bytecodeOf(protectedPaths: readonly string[]): (path: string) => boolean {
  const prefixes = protectedPaths
    .filter((path) => path.endsWith('.py'))
    .map((path) => {
      const at = path.lastIndexOf('/');
      return `${path.slice(0, at + 1)}__pycache__/${path.slice(at + 1, -'.py'.length)}.`;
    });
  return (path) => path.endsWith('.pyc') && prefixes.some((prefix) => path.startsWith(prefix));
}
