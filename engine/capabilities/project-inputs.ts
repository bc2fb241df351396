/**
 * What detection reads of a project, and nothing more: the folders a `fileExists` pattern names
 * (one listing per folder, never a walk of the tree), the manifests a `packageDep` looks in, the
 * files a `fileContent` rule names, the GitHub workflows and the compose files. Every file is
 * read with O_NOFOLLOW and only its first {@link MAX_READ_BYTES}: a repository's link to a file
 * outside it is not read, and a huge file costs one bounded read. The result carries a hash of
 * everything read, the key of the cached profile.
 */
import { constants } from 'node:fs';
import { open, readdir } from 'node:fs/promises';
import { join, posix } from 'node:path';
import { createHash } from 'node:crypto';
import type { Rule } from '../generated/capability.js';

/** 256 KiB of any one file: a manifest or a config is far smaller; a bigger file is not what a rule means. */
export const MAX_READ_BYTES = 256 * 1024;
/** Workflow files read at most (a repository with more is read in name order up to this). */
export const MAX_WORKFLOWS = 200;

export const MANIFESTS = ['package.json', 'pyproject.toml', 'go.mod', 'Cargo.toml'] as const;
export const COMPOSE_FILES = ['docker-compose.yml', 'docker-compose.yaml', 'compose.yml', 'compose.yaml'] as const;
export const WORKFLOW_DIR = '.github/workflows';

/** One folder's entries: name → 'd' (folder) or 'f' (anything else that is not a link to follow). */
export type Listing = ReadonlyMap<string, 'd' | 'f'>;

export interface ProjectInputs {
  root: string;
  /** Folder (relative, posix, '' for the root) → its listing; undefined when it is not a folder. */
  listings: ReadonlyMap<string, Listing | undefined>;
  /** File (relative, posix) → its first MAX_READ_BYTES as text; undefined when absent or not a plain file. */
  files: ReadonlyMap<string, string | undefined>;
  /** sha256 over every listing and file read, in a fixed order. */
  hash: string;
}

/** Reads what `rules` need of the project at `root`. */
export async function readProjectInputs(root: string, rules: readonly Rule[]): Promise<ProjectInputs> {
  const listings = new Map<string, Listing | undefined>();
  const files = new Map<string, string | undefined>();
  const list = async (dir: string): Promise<Listing | undefined> => {
    if (listings.has(dir)) return listings.get(dir);
    const listing = await listFolder(join(root, dir));
    listings.set(dir, listing);
    return listing;
  };
  const read = async (path: string): Promise<void> => {
    if (!files.has(path)) files.set(path, await readBounded(join(root, path)));
  };

  const wanted = new Set<string>();
  for (const rule of rules) {
    if (rule.fileExists !== undefined) await expandPattern(rule.fileExists, list);
    if (rule.packageDep !== undefined) MANIFESTS.forEach((m) => wanted.add(m));
    if (rule.fileContent !== undefined) wanted.add(normal(rule.fileContent.path));
    if (rule.composeService !== undefined) COMPOSE_FILES.forEach((c) => wanted.add(c));
    if (rule.workflowAction !== undefined) {
      const workflows = await list(WORKFLOW_DIR);
      const names = [...(workflows?.entries() ?? [])]
        .filter(([name, kind]) => kind === 'f' && /\.ya?ml$/.test(name))
        .map(([name]) => name)
        .sort()
        .slice(0, MAX_WORKFLOWS);
      names.forEach((name) => wanted.add(`${WORKFLOW_DIR}/${name}`));
    }
  }
  await Promise.all([...wanted].filter((p) => p !== '').map(read));

  const hash = createHash('sha256');
  for (const dir of [...listings.keys()].sort()) {
    const listing = listings.get(dir);
    hash.update(`dir\0${dir}\0`);
    for (const name of [...(listing?.keys() ?? [])].sort()) hash.update(`${name}\0${listing!.get(name)}\0`);
  }
  for (const path of [...files.keys()].sort()) {
    const text = files.get(path);
    hash.update(`file\0${path}\0${text === undefined ? '-' : `${text.length}\0${text}`}\0`);
  }
  return { root, listings, files, hash: hash.digest('hex') };
}

/** Lists every folder a pattern's wildcard segments need, one level at a time. */
async function expandPattern(pattern: string, list: (dir: string) => Promise<Listing | undefined>): Promise<void> {
  const segments = normal(pattern).split('/');
  let dirs = [''];
  for (const [index, segment] of segments.entries()) {
    const last = index === segments.length - 1;
    const next: string[] = [];
    for (const dir of dirs) {
      const listing = await list(dir);
      if (listing === undefined) continue;
      for (const [name, kind] of listing)
        if (segmentMatches(segment, name) && (last || kind === 'd')) next.push(dir === '' ? name : `${dir}/${name}`);
    }
    if (last) return;
    dirs = next;
  }
}

/** A relative path in posix form, without `./` and with no way out of the root. */
export function normal(path: string): string {
  const cleaned = posix
    .normalize(path.replaceAll('\\', '/'))
    .replace(/^(\.\/)+/, '')
    .replace(/\/+$/, '');
  if (cleaned === '.' || cleaned.startsWith('../') || cleaned === '..' || cleaned.startsWith('/')) return '';
  return cleaned;
}

/** One path segment against one pattern segment (`*` matches any run of characters but `/`). */
export function segmentMatches(pattern: string, name: string): boolean {
  if (!pattern.includes('*')) return pattern === name;
  const source = pattern
    .split('*')
    .map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
    .join('[^/]*');
  return new RegExp(`^${source}$`).test(name);
}

async function listFolder(path: string): Promise<Listing | undefined> {
  try {
    const entries = await readdir(path, { withFileTypes: true });
    return new Map(entries.map((e) => [e.name, e.isDirectory() ? 'd' : 'f'] as const));
  } catch {
    return undefined;
  }
}

async function readBounded(path: string): Promise<string | undefined> {
  let handle;
  try {
    handle = await open(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
    const info = await handle.stat();
    if (!info.isFile()) return undefined;
    const buffer = Buffer.alloc(Math.min(info.size, MAX_READ_BYTES));
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, 0);
    return buffer.subarray(0, bytesRead).toString('utf8');
  } catch {
    return undefined;
  } finally {
    await handle?.close();
  }
}
