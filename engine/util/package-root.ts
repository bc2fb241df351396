import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

let cached: { root: string; version: string } | undefined;

/** neo's npm package name (the command it installs is `neo`; the npm name `neo` is someone else's). */
export const PACKAGE_NAME = 'neo-flow';

/**
 * The directory of neo's own package.json, whether running from compiled `dist/` or from the
 * TypeScript sources under test. Packaged definitions and schemas are found relative to it.
 */
export function packageRoot(): string {
  return ownManifest().root;
}

/** neo's version, from package.json (read once, with the root). */
export function packageVersion(): string {
  return ownManifest().version;
}

function ownManifest(): { root: string; version: string } {
  if (cached !== undefined) return cached;
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const manifest = join(dir, 'package.json');
    const parsed = existsSync(manifest)
      ? (JSON.parse(readFileSync(manifest, 'utf8')) as { name?: string; version?: string })
      : undefined;
    if (parsed?.name === PACKAGE_NAME) {
      cached = { root: dir, version: String(parsed.version) };
      return cached;
    }
    const parent = dirname(dir);
    if (parent === dir)
      throw new Error(`cannot find ${PACKAGE_NAME}'s package.json above ` + fileURLToPath(import.meta.url));
    dir = parent;
  }
}

let build: string | undefined;

/**
 * neo's version plus which build of it this install holds (the binary's size and mtime): two
 * processes of one version but different builds (a rebuilt or reinstalled neo) are not the same
 * program, which matters to whoever would reuse the other's long-lived daemon.
 */
export function packageBuild(): string {
  if (build !== undefined) return build;
  const bin = statSync(neoBinPath(), { throwIfNoEntry: false });
  build = bin === undefined ? packageVersion() : `${packageVersion()}+${bin.size}.${Math.trunc(bin.mtimeMs)}`;
  return build;
}

/** The `neo` binary of this install (the bundle `npm run build` writes). */
export function neoBinPath(): string {
  return join(packageRoot(), 'dist', 'bin', 'neo.js');
}
