import { existsSync } from 'node:fs';
import { mkdir, readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { GitRepo, snapshotTree, type SnapshotStore } from '../../../engine/execution/index.js';
import { TurnDiffCapture, type DiffBaseline } from '../../../engine/session/index.js';
import { tempDir } from '../../helpers/temp.js';

const GIT_ENV = {
  GIT_AUTHOR_NAME: 't',
  GIT_AUTHOR_EMAIL: 't@example.com',
  GIT_COMMITTER_NAME: 't',
  GIT_COMMITTER_EMAIL: 't@example.com',
};
const git = (cwd: string, ...args: string[]) => execa('git', args, { cwd, env: GIT_ENV });

async function committed(dir: string, files: Record<string, string>): Promise<void> {
  await git(dir, 'init', '-q', '-b', 'main');
  for (const [path, content] of Object.entries(files)) {
    await mkdir(join(dir, path, '..'), { recursive: true });
    await writeFile(join(dir, path), content);
  }
  await git(dir, 'add', '-A');
  await git(dir, 'commit', '-q', '-m', 'init');
}

/** A caller's snapshot of `dir` (what a flow step's base is), its objects in a store of its own. */
async function handed(dir: string, home: string): Promise<DiffBaseline> {
  const repo = (await GitRepo.discover(dir))!;
  const store: SnapshotStore = { dir: join(await tempDir('neo-base-'), 'snapshots'), exclude: [home] };
  return { repo, store, tree: await snapshotTree(repo, store) };
}

describe('a turn diff capture handed its first baseline', () => {
  it('diffs the first turn from the handed tree, keeps its snapshots in the handed store and leaves it on close', async () => {
    const dir = await tempDir('neo-handed-');
    const home = await tempDir('neo-home-');
    await committed(dir, { 'a.txt': 'a\n' });
    const baseline = await handed(dir, home);
    // Written after the handed snapshot: a capture that took its own baseline would not show it.
    await writeFile(join(dir, 'between.txt'), 'x\n');
    const capture = await TurnDiffCapture.open(join(dir), { home, baseline, storeDir: join(home, 'own') });
    await writeFile(join(dir, 'a.txt'), 'A\n');
    const first = await capture.settle();
    expect(first.files.map((f) => `${f.status} ${f.path}`)).toEqual(['M a.txt', 'A between.txt']);
    const second = await capture.settle();
    expect(second.files).toEqual([]);
    await capture.close();
    expect(existsSync(join(home, 'own'))).toBe(false);
    expect((await readdir(join(baseline.store.dir, 'objects'))).length).toBeGreaterThan(0);
  });

  it('takes its own baseline when the handed one is not of its repository or leaves out other paths', async () => {
    const outer = await tempDir('neo-outer-');
    const home = await tempDir('neo-home-');
    await committed(outer, { 'a.txt': 'a\n' });
    const nested = join(outer, 'nested');
    await mkdir(nested);
    await committed(nested, { 'n.txt': 'n\n' });
    const outerBase = await handed(outer, home);
    await writeFile(join(nested, 'before.txt'), 'x\n');
    const inNested = await TurnDiffCapture.open(nested, { home, baseline: outerBase });
    await writeFile(join(nested, 'n.txt'), 'N\n');
    expect((await inNested.settle()).files.map((f) => f.path)).toEqual(['n.txt']);
    await inNested.close();

    const otherHome = await handed(outer, await tempDir('neo-other-home-'));
    await writeFile(join(outer, 'before.txt'), 'x\n');
    const elsewhere = await TurnDiffCapture.open(outer, { home, baseline: otherHome });
    await writeFile(join(outer, 'a.txt'), 'A\n');
    expect((await elsewhere.settle()).files.map((f) => f.path)).toEqual(['a.txt']);
    await elsewhere.close();
  });
});
