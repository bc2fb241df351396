import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { builtinUnavailable } from '../../../engine/capabilities/this-neo.js';
import { memoryDir } from '../../../engine/memory/repo-key.js';
import { tempDir } from '../../helpers/temp.js';

describe("neo's memory server is handed over only where there is a memory to serve", () => {
  it('left out before the repository has one, handed over after, from a linked worktree too', async () => {
    const root = await tempDir('neo-builtin-');
    const [home, repo, worktree] = [join(root, 'home'), join(root, 'repo'), join(root, 'wt')];
    mkdirSync(join(repo, '.git', 'worktrees', 'wt'), { recursive: true });
    mkdirSync(worktree);
    writeFileSync(join(worktree, '.git'), `gitdir: ${join(repo, '.git', 'worktrees', 'wt')}\n`);
    expect(builtinUnavailable('neo-memory', home, repo)).toMatch(/no memory yet/);
    expect(builtinUnavailable('neo-memory', home, worktree)).toMatch(/no memory yet/);
    mkdirSync(memoryDir(home, repo), { recursive: true });
    writeFileSync(join(memoryDir(home, repo), 'memory.db'), '');
    expect(builtinUnavailable('neo-memory', home, repo)).toBeUndefined();
    expect(builtinUnavailable('neo-memory', home, worktree)).toBeUndefined();
    expect(builtinUnavailable('stripe', home, repo)).toBeUndefined();
  });
});
