/**
 * A mirror of one installed dependency folder of the checkout inside a workspace: real folders
 * at its top, and in them links to the checkout's entries, so a worktree has the project's
 * packages in the time it takes to make a few hundred links, whatever they weigh. A mirror is
 * truthful about the workspace: a link that leads back into the checkout's own sources (a
 * monorepo's workspace package, `node_modules/@app/core -> ../../packages/core`) leads to the
 * workspace's copy instead, and a virtualenv's files that name the checkout (an editable
 * install's `.pth` or finder, a script's `#!` line, `activate`) are copies naming the
 * workspace, so the gate imports the sources the agent changed, never the checkout's.
 *
 * Its top is real folders so that a `node_modules/` pattern in `.gitignore` ignores it (git does
 * not see a link as a folder), and an install step (`npm ci`) removes the links, never what they
 * lead to. What they lead to is the checkout's, shown read-only inside every sandbox.
 */
import { chmod, lstat, mkdir, readdir, readFile, readlink, realpath, symlink, writeFile } from 'node:fs/promises';
import { dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { CACHE_ENTRIES } from './dependencies.js';

/** Where a mirror is made: the folder it mirrors, where, and the two roots they lie in. */
export interface MirrorPlace {
  /** The checkout's folder (absolute, real). */
  from: string;
  /** Where the mirror goes (absolute; must not exist). */
  to: string;
  /** The checkout's root (real): a link or a file naming a path inside it names the workspace's. */
  checkout: string;
  /** Other spellings of the checkout's root files may hold (the path the user reached it by, through a link). */
  aliases?: readonly string[];
  /** The workspace's root. */
  workspace: string;
}

/** Files at most this big are read to see whether they name the checkout (a script, a `.pth`). */
const MAX_REWRITE_BYTES = 1 << 20;

/** A `node_modules`-like folder: its entries linked, a scope folder (`@babel`) and `.bin` one level further. */
export async function mirrorPackages(place: MirrorPlace): Promise<void> {
  await mkdir(place.to);
  for (const name of await readdir(place.from)) {
    // A tool makes its own cache there, writable: the workspace's is its own.
    if (CACHE_ENTRIES.has(name)) continue;
    const entry = join(place.from, name);
    const info = await lstat(entry);
    // `.bin` is one level further too: its links lead through a workspace package's link
    // (`.bin/app-cli -> ../@app/cli/bin.js`) into the checkout's sources, which the sandbox hides.
    if ((name.startsWith('@') || name === '.bin') && info.isDirectory()) {
      await mkdir(join(place.to, name));
      for (const inner of await readdir(entry)) await linkEntry(place, join(entry, inner), join(place.to, name, inner));
    } else await linkEntry(place, entry, join(place.to, name));
  }
}

/**
 * A virtualenv: `pyvenv.cfg`, its own `.gitignore`, the scripts folder (`bin`, `Scripts`) and the top of each
 * `site-packages` real, files there that name the checkout copied to name the workspace, the
 * rest linked. Python finds the venv from the path it was started by (`<workspace>/.venv/bin/python`),
 * so the mirror is the environment, with the checkout's packages.
 */
export async function mirrorVirtualenv(place: MirrorPlace): Promise<void> {
  await mkdir(place.to);
  for (const name of await readdir(place.from)) {
    const entry = join(place.from, name);
    const at = join(place.to, name);
    const info = await lstat(entry);
    if (info.isDirectory() && (name === 'bin' || name === 'Scripts'))
      await mirrorRewriting(place, entry, at, () => true);
    else if (info.isDirectory() && (name === 'lib' || name === 'Lib')) await mirrorLib(place, entry, at);
    // A copy whatever it says: a venv is known by this file, and a link is not one.
    else if (info.isFile() && name === 'pyvenv.cfg') await copyRewriting(place, entry, at, { always: true });
    // The `*` that uv, virtualenv and Python 3.13's venv write there, so git ignores the venv:
    // git reads no `.gitignore` through a link, and an unignored mirror would not be kept.
    else if (info.isFile() && name === '.gitignore' && info.size <= MAX_REWRITE_BYTES)
      await copyRewriting(place, entry, at, { always: true });
    else await linkEntry(place, entry, at);
  }
}

/** `lib/python3.X/site-packages`, real down to site-packages, where the editable installs are. */
async function mirrorLib(place: MirrorPlace, lib: string, at: string): Promise<void> {
  await mkdir(at);
  for (const version of await readdir(lib)) {
    const entry = join(lib, version);
    const info = await lstat(entry);
    if (!info.isDirectory()) {
      await linkEntry(place, entry, join(at, version));
      continue;
    }
    await mkdir(join(at, version));
    for (const name of await readdir(entry)) {
      const inner = join(entry, name);
      if (name === 'site-packages' && (await lstat(inner)).isDirectory())
        await mirrorRewriting(place, inner, join(at, version, name), isEditableHook);
      else await linkEntry(place, inner, join(at, version, name));
    }
  }
}

/**
 * Files a site-packages folder reads at start-up that may name a project's sources: `.pth`
 * files, setuptools' `__editable__` finders, an `.egg-link`.
 */
function isEditableHook(name: string): boolean {
  return name.endsWith('.pth') || name.startsWith('__editable__') || name.endsWith('.egg-link');
}

/** A folder made real: each file `rewrite` accepts that names the checkout is copied naming the workspace; the rest linked. */
async function mirrorRewriting(
  place: MirrorPlace,
  from: string,
  to: string,
  rewrite: (name: string) => boolean,
): Promise<void> {
  await mkdir(to);
  for (const name of await readdir(from)) {
    const entry = join(from, name);
    const info = await lstat(entry);
    if (info.isFile() && info.size <= MAX_REWRITE_BYTES && rewrite(name))
      await copyRewriting(place, entry, join(to, name));
    else await linkEntry(place, entry, join(to, name));
  }
}

/** A copy of `entry` with every mention of the checkout's root naming the workspace's (a link when it names none). */
async function copyRewriting(
  place: MirrorPlace,
  entry: string,
  at: string,
  options: { always?: boolean } = {},
): Promise<void> {
  const text = await readFile(entry, 'latin1');
  const mention = mentionOf(place);
  if (text.search(mention) < 0 && options.always !== true) {
    await linkEntry(place, entry, at);
    return;
  }
  await writeFile(at, text.replace(mention, place.workspace), 'latin1');
  await chmod(at, (await lstat(entry)).mode & 0o777);
}

/**
 * The checkout's root as a whole path component (`/home/u/app`, `/home/u/app/src`, never
 * `/home/u/app-old`), in each spelling, longest first so no spelling is replaced half.
 */
function mentionOf(place: MirrorPlace): RegExp {
  const roots = [...new Set([place.checkout, ...(place.aliases ?? [])])].sort((a, b) => b.length - a.length);
  const escaped = roots.map((root) => root.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
  return new RegExp(`(?:${escaped.join('|')})(?![^/\\\\\\s'"\\]\\)}:;,])`, 'g');
}

/**
 * A link at `at` standing for `entry`: a link of the checkout leading inside the mirrored folder
 * leads to the mirror's counterpart, one leading elsewhere in the checkout to the workspace's,
 * one leading outside as it did; anything else is a link to the checkout's entry.
 */
async function linkEntry(place: MirrorPlace, entry: string, at: string): Promise<void> {
  const info = await lstat(entry);
  if (!info.isSymbolicLink()) {
    await symlink(entry, at);
    return;
  }
  const real = await realpath(entry).catch(() => undefined);
  if (real !== undefined && within(place.from, real)) await symlink(join(place.to, relative(place.from, real)), at);
  else if (real !== undefined && within(place.checkout, real))
    await symlink(join(place.workspace, relative(place.checkout, real)), at);
  else {
    const target = await readlink(entry);
    await symlink(isAbsolute(target) ? target : resolve(dirname(entry), target), at);
  }
}

function within(parent: string, path: string): boolean {
  return path === parent || path.startsWith(parent.endsWith(sep) ? parent : parent + sep);
}
