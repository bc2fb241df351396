import { describe, expect, it } from 'vitest';
import { GitRepo, changedPaths, diffTrees } from '../../../engine/execution/index.js';

// A repository git cannot open: every git command asked of it fails (GIT_DIR_CHANGED).
const nowhere = GitRepo.pinned({
  top: '/nonexistent/neo-repo',
  gitDir: '/nonexistent/neo-repo/.git',
  commonDir: '/nonexistent/neo-repo/.git',
});
const store = { dir: '/nonexistent/neo-store' };
const TREE = '4b825dc642cb6eb9a060e54bf8d69288fbee4904';
const OTHER = 'a8574c17945e51dcbb7c402f6b0b85293a2a4e52';

describe('the change between two snapshots', () => {
  it('is nothing when both are the same tree, without asking git (a turn that changed nothing costs no diff)', async () => {
    await expect(diffTrees(nowhere, store, TREE, TREE, 1024)).resolves.toEqual({
      files: [],
      patch: '',
      patchBytes: 0,
      truncated: false,
    });
    await expect(changedPaths(nowhere, store, TREE, TREE)).resolves.toEqual([]);
  });

  it('asks git when the trees differ', async () => {
    await expect(diffTrees(nowhere, store, TREE, OTHER, 1024)).rejects.toMatchObject({ code: 'GIT_DIR_CHANGED' });
    await expect(changedPaths(nowhere, store, TREE, OTHER)).rejects.toMatchObject({ code: 'GIT_DIR_CHANGED' });
  });
});
