/**
 * The packaged snapshot stores what a load of the packaged layer alone works out from the whole
 * set at build time: the set's hash (with the text it hashed) and each definition's reference key
 * (engine/definitions/packaged-snapshot.ts). A cold `neo validate` reports what it reported when
 * it did that work itself, and a set that differs from the build's still gets the work done.
 * Needs `npm run build` (the snapshot is part of it).
 */
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DefinitionSet } from '../../engine/definitions/definition-set.js';
import { loadDefinitions } from '../../engine/definitions/index.js';
import { NEO_BIN, runNeo } from '../helpers/cli.js';
import { tempDir, writeTree } from '../helpers/temp.js';

/** The package root the binary under test reads its packaged layer and snapshot from. */
const PACKAGED = dirname(dirname(dirname(NEO_BIN)));

async function sandbox() {
  const root = await tempDir();
  await writeTree(root, { 'repo/.git/HEAD': 'ref: refs/heads/main\n', 'home/.keep': '' });
  return { home: join(root, 'home'), repo: join(root, 'repo') };
}

describe('neo validate with the packaged snapshot', () => {
  it("prints the set hash sha256 gives for the packaged set (the build's, not hashed again)", async () => {
    const { home, repo } = await sandbox();
    const { set } = await loadDefinitions({ packaged: PACKAGED, home, cwd: repo, noProject: true });
    // The same definitions hashed from scratch: no known hash given.
    const fresh = new DefinitionSet({ definitions: set.all() }).hash;
    expect(set.hash).toBe(fresh);
    const result = await runNeo(['validate'], { cwd: repo, env: { NEO_HOME: home } });
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toBe(`✓ ${set.all().length} definitions valid · set ${fresh.slice(0, 8)}`);
  });

  it('a user layer that changes the set gets a hash of its own', async () => {
    const { home, repo } = await sandbox();
    const packagedOnly = (await runNeo(['validate'], { cwd: repo, env: { NEO_HOME: home } })).stdout;
    await writeTree(home, {
      'definitions/policies/frugal.yaml': 'description: a policy of the user\nmaxPosture: plan\n',
    });
    const { set } = await loadDefinitions({ packaged: PACKAGED, home, cwd: repo, noProject: true });
    expect(set.hash).toBe(new DefinitionSet({ definitions: set.all() }).hash);
    const result = await runNeo(['validate'], { cwd: repo, env: { NEO_HOME: home } });
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toBe(`✓ ${set.all().length} definitions valid · set ${set.hash.slice(0, 8)}`);
    expect(result.stdout).not.toBe(packagedOnly);
  });

  it('re-checks a packaged persona whose policy a user layer overrides (its build-time check no longer applies)', async () => {
    const { home, repo } = await sandbox();
    // The packaged planner and reviewer name `read-only` and ask for 4 rounds: under 2 that widens.
    await writeTree(home, {
      'definitions/policies/read-only.yaml': 'description: stricter\nmaxPosture: plan\nmaxRounds: 2\n',
    });
    const result = await runNeo(['validate'], { cwd: repo, env: { NEO_HOME: home } });
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toMatch(/· 0 errors, 2 warnings$/);
    const widened = result.stderr.split('\n').filter((line) => line.includes('DEF_POLICY_WIDENED'));
    expect(widened.map((line) => line.split(':')[0])).toEqual([
      join(PACKAGED, 'personas', 'planner.md'),
      join(PACKAGED, 'personas', 'reviewer.md'),
    ]);
  });
});
