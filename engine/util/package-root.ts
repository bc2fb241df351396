import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

let cached: string | undefined;

/**
 * The directory of neo's own package.json, whether running from compiled `dist/` or from the
 * TypeScript sources under test. Packaged definitions and schemas are found relative to it.
 */
export function packageRoot(): string {
  if (cached !== undefined) return cached;
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const manifest = join(dir, 'package.json');
    if (existsSync(manifest) && (JSON.parse(readFileSync(manifest, 'utf8')) as { name?: string }).name === 'neo') {
      cached = dir;
      return dir;
    }
    const parent = dirname(dir);
    if (parent === dir) throw new Error('cannot find neo package.json above ' + fileURLToPath(import.meta.url));
    dir = parent;
  }
}

/** neo's version, from package.json. */
export function packageVersion(): string {
  return (JSON.parse(readFileSync(join(packageRoot(), 'package.json'), 'utf8')) as { version: string }).version;
}

/** The `neo` binary of this install (the bundle `npm run build` writes). */
export function neoBinPath(): string {
  return join(packageRoot(), 'dist', 'bin', 'neo.js');
}
