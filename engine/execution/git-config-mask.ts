/**
 * A repository's git config is readable inside every sandbox (git needs it), and it may hold
 * credentials: a token in a remote's URL (`https://x-access-token:TOKEN@github.com/…`, also in a
 * `[url "…"]` or `[http "…"]` section name), an `http.extraHeader` carrying an Authorization
 * header (what CI checkouts write), a password or token key. A confined process is shown a copy
 * with those taken out, bound read-only over the real file: git still finds its remotes, branches
 * and settings, and the credential stays outside. The copies are content-addressed files in a
 * folder of NEO_HOME (hidden inside: only the copy itself is shown), so the same config is written
 * once and concurrent runs never race.
 */
import { createHash } from 'node:crypto';
import { lstatSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { SandboxBind } from './sandbox-spec.js';

/** The config files of a git dir (a worktree's own settings live in `config.worktree`). */
const CONFIG_FILES = ['config', 'config.worktree'];
/** Past this size a file is not a config git wrote for a person: shown as it is not, but emptied. */
const MAX_CONFIG_BYTES = 256 * 1024;
/** A URL's userinfo: `scheme://` then anything up to `@` that cannot be part of a host or path. */
const URL_USERINFO = /\b([a-z][a-z0-9+.-]*:\/\/)[^\s/?#@"'`\\<>]+@/gi;
/** Keys whose values are credentials (`extraheader`, `password`, `token`, `secret`, `…auth…`). */
const SECRET_KEY =
  /^(\s*)((?:[a-z0-9-]*)(?:extraheader|password|passwd|token|secret|authorization|auth)[a-z0-9-]*)\s*=.*$/gim;

/**
 * The binds that show a credential-free copy over each config file of the git dirs among
 * `readable` (paths a sandbox shows read-only); none for a config that holds no credential.
 */
export function gitConfigMasks(readable: readonly string[], maskFolder: string): SandboxBind[] {
  const binds: SandboxBind[] = [];
  for (const dir of readable) {
    if (lstatSync(dir, { throwIfNoEntry: false })?.isDirectory() !== true) continue;
    for (const name of CONFIG_FILES) {
      const path = join(dir, name);
      const text = readConfig(path);
      if (text === undefined) continue;
      const masked = withoutCredentials(text);
      if (masked === text) continue;
      binds.push({ path: maskFile(maskFolder, masked), at: path });
    }
  }
  return binds;
}

/** `text` with every URL's userinfo and every credential key's value taken out. */
export function withoutCredentials(text: string): string {
  return text
    .replace(URL_USERINFO, '$1')
    .replace(
      SECRET_KEY,
      (_line, indent: string, key: string) =>
        `${indent}# ${key}: removed by neo (credentials stay outside the sandbox)`,
    );
}

/** A regular file's text (never a FIFO or device planted there: reading one could block); too large reads as empty. */
function readConfig(path: string): string | undefined {
  const info = lstatSync(path, { throwIfNoEntry: false });
  if (info === undefined || !info.isFile()) return undefined;
  if (info.size > MAX_CONFIG_BYTES) return '';
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
}

/** The content-addressed file holding `text`, written once (atomically) and then reused. */
function maskFile(folder: string, text: string): string {
  const file = join(folder, `${createHash('sha256').update(text).digest('hex').slice(0, 32)}.gitconfig`);
  if (lstatSync(file, { throwIfNoEntry: false })?.isFile() === true) return file;
  mkdirSync(folder, { recursive: true, mode: 0o700 });
  const temp = `${file}.${process.pid}.tmp`;
  writeFileSync(temp, text, { mode: 0o644 });
  renameSync(temp, file);
  return file;
}
