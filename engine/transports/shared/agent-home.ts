/**
 * A confined agent CLI's own home: one private folder per code session
 * (`NEO_HOME/code-sessions/<id>/home`), bound read-write into that session's sandbox and no other,
 * never read by neo. It starts with only what the descriptor's `configHome` names — the files a
 * CLI needs to authenticate and reach its model, copied from the user's own config homes — so a
 * hook, a settings file or a trust list the CLI writes there never reaches the user's next plain
 * run of it, and the user's config homes are never shown to it at all.
 */
import { constants } from 'node:fs';
import { lstat, mkdir, open, rm } from 'node:fs/promises';
import { isAbsolute, join, resolve, sep } from 'node:path';
import type { Backend } from '../../definitions/index.js';
import { configHomePath } from '../../execution/index.js';
import { NeoError } from '../../util/errors.js';

/** One `configHome` entry of a descriptor. */
export type ConfigHomeEntry = NonNullable<Backend['configHome']>[number];

/** The most a seeded file may hold: credentials and a config file, never a history. */
export const SEED_MAX_BYTES = 1024 * 1024;

/** A prepared home: its folder, and the variables that point the CLI into it. */
export interface AgentHome {
  dir: string;
  env: Record<string, string>;
}

/** Where the user's own copy of an entry is (a folder; for a `file` entry, a file), if anywhere. */
export function userCopy(entry: ConfigHomeEntry, env: NodeJS.ProcessEnv): string | undefined {
  const named = entry.variable === undefined ? undefined : env[entry.variable];
  if (named !== undefined && named !== '') return isAbsolute(named) ? named : resolve(named);
  if (entry.file === true) return undefined;
  const from = entry.from === undefined ? undefined : configHomePath(entry.from, env);
  return from ?? configHomePath(entry.at, env);
}

/**
 * Makes (or, for a resumed session, refreshes) the session's home at `dir`: HOME and XDG_* point
 * into it, each entry's folder exists there with its seed files freshly copied from the user's
 * copy, and each entry's variable points at the session's copy. Nothing of the session runs
 * while this runs (a session's home is shown to its own sandbox only), and what a previous run
 * left in the way — a link where a folder or a seed file goes — is removed, never followed.
 */
export async function prepareAgentHome(
  dir: string,
  entries: readonly ConfigHomeEntry[],
  env: NodeJS.ProcessEnv,
): Promise<AgentHome> {
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const info = await lstat(dir);
  if (!info.isDirectory())
    throw new NeoError('TRANSPORT_START_FAILED', `the session's own home ${dir} is not a folder`, {
      hint: 'remove it; neo makes it again at the next start',
    });
  const set: Record<string, string> = {
    HOME: dir,
    XDG_CONFIG_HOME: join(dir, '.config'),
    XDG_DATA_HOME: join(dir, '.local', 'share'),
    XDG_CACHE_HOME: join(dir, '.cache'),
    XDG_STATE_HOME: join(dir, '.local', 'state'),
  };
  for (const entry of entries) {
    const source = userCopy(entry, env);
    if (entry.file === true) {
      if (source !== undefined && (await seedFile(source, dir, entry.at)) && entry.variable !== undefined)
        set[entry.variable] = join(dir, entry.at);
      continue;
    }
    await folderIn(dir, entry.at);
    if (entry.variable !== undefined) set[entry.variable] = join(dir, entry.at);
    if (source === undefined) continue;
    for (const name of entry.seed ?? []) await seedFile(join(source, name), dir, join(entry.at, name));
  }
  return { dir, env: set };
}

/**
 * The variables a user's own config names as where the CLI reads its credential (`namesEnv`):
 * kept in its environment, sandboxed or not. Only well-formed names count.
 */
export async function namedVariables(entries: readonly ConfigHomeEntry[], env: NodeJS.ProcessEnv): Promise<string[]> {
  const names = new Set<string>();
  for (const entry of entries) {
    if (entry.namesEnv === undefined) continue;
    const pattern = namesPattern(entry.namesEnv);
    const source = userCopy(entry, env);
    if (source === undefined) continue;
    const files = entry.file === true ? [source] : (entry.seed ?? []).map((name) => join(source, name));
    for (const file of files) {
      const text = (await readUserFile(file))?.toString('utf8');
      if (text === undefined) continue;
      for (const match of text.matchAll(pattern))
        if (match[1] !== undefined && /^[A-Za-z_][A-Za-z0-9_]*$/.test(match[1])) names.add(match[1]);
    }
  }
  return [...names];
}

function namesPattern(source: string): RegExp {
  try {
    return new RegExp(source, 'g');
  } catch (error) {
    throw new NeoError('TRANSPORT_START_FAILED', `configHome namesEnv is not a regular expression: ${String(error)}`, {
      hint: "fix the backend descriptor's configHome[].namesEnv",
    });
  }
}

/**
 * A file of the user's own config, read as data: a regular file (a link is not followed), at
 * most SEED_MAX_BYTES; undefined when it is absent, not a regular file, or larger.
 */
export async function readUserFile(path: string): Promise<Buffer | undefined> {
  let handle;
  try {
    handle = await open(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch {
    return undefined;
  }
  try {
    const info = await handle.stat();
    if (!info.isFile() || info.size > SEED_MAX_BYTES) return undefined;
    const buffer = Buffer.alloc(SEED_MAX_BYTES + 1);
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, 0);
    return bytesRead > SEED_MAX_BYTES ? undefined : buffer.subarray(0, bytesRead);
  } finally {
    await handle.close();
  }
}

/** Copies `source` to `rel` under `root` (a fresh file, mode 0600); false when there was nothing to copy. */
async function seedFile(source: string, root: string, rel: string): Promise<boolean> {
  const content = await readUserFile(source);
  if (content === undefined) return false;
  const parts = rel.split(sep).filter((p) => p !== '' && p !== '.');
  const name = parts.pop();
  if (name === undefined) return false;
  const folder = await folderIn(root, parts.join(sep));
  const target = join(folder, name);
  await rm(target, { recursive: true, force: true });
  const handle = await open(
    target,
    constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW,
    0o600,
  );
  try {
    await handle.writeFile(content);
  } finally {
    await handle.close();
  }
  return true;
}

/** `rel` under `root` as real folders: whatever else is in the way (a link, a file) is removed first. */
async function folderIn(root: string, rel: string): Promise<string> {
  let current = root;
  for (const part of rel.split(sep)) {
    if (part === '' || part === '.') continue;
    if (part === '..') throw new NeoError('TRANSPORT_START_FAILED', `configHome path ${rel} leaves the home`);
    current = join(current, part);
    const info = await lstat(current).catch(() => undefined);
    if (info?.isDirectory()) continue;
    if (info !== undefined) await rm(current, { recursive: true, force: true });
    await mkdir(current, { mode: 0o700 });
  }
  return current;
}
