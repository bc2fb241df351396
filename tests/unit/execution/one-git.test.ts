import { readdir, readFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
/** The one module that spawns git; every other git call goes through it (hardened, pinned). */
const RUNNER = 'engine/execution/git.ts';

async function sources(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true });
  const nested = await Promise.all(
    entries.map((entry) => {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) return sources(path);
      return Promise.resolve(/\.(ts|tsx|mjs|js)$/.test(entry.name) ? [path] : []);
    }),
  );
  return nested.flat();
}

describe('one git module', () => {
  it('spawns git only in engine/execution/git.ts (no second wrapper in engine or cli)', async () => {
    // A spawn of the git binary in any spelling neo's code uses: an argv array or a file argument.
    const spawnsGit = /(spawnProcess|spawn|spawnSync|execFile|execFileSync|execa|execaSync)\(\s*\[?\s*['"`]git['"`]/;
    const offenders: string[] = [];
    for (const folder of ['engine', 'cli']) {
      for (const file of await sources(join(ROOT, folder))) {
        const name = relative(ROOT, file);
        if (name === RUNNER) continue;
        if (spawnsGit.test(await readFile(file, 'utf8'))) offenders.push(name);
      }
    }
    expect(offenders).toEqual([]);
    expect(spawnsGit.test(await readFile(join(ROOT, RUNNER), 'utf8'))).toBe(true);
  });
});
