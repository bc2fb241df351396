import { existsSync, readFileSync, statSync } from 'node:fs';
import { mkdir, realpath, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openInside, writeInside } from '../../../../engine/agent/tools/pinned-io.js';
import { tempDir } from '../../../helpers/temp.js';

/**
 * The second check behind the path check: the path passed here already went through a link
 * out of the folder (as it would if the agent's background shell swapped a folder for a link
 * after the tool's path check). What was opened, not what the path said, decides.
 */
describe('pinned file I/O of neo’s own tools', () => {
  async function layout() {
    const base = await realpath(await tempDir());
    const root = join(base, 'work');
    const outside = join(base, 'home');
    await mkdir(join(root, 'src'), { recursive: true });
    await mkdir(outside, { recursive: true });
    await writeFile(join(outside, 'id_rsa'), 'KEY\n');
    await writeFile(join(root, 'src', 'a.txt'), 'inside\n');
    await symlink(outside, join(root, 'swapped'));
    return { root, outside };
  }

  it('a read that reaches outside through a link is refused; one inside is read', async () => {
    const { root } = await layout();
    await expect(openInside(root, join(root, 'swapped', 'id_rsa'))).rejects.toMatchObject({
      message: expect.stringMatching(/outside the working directory/),
    });
    const handle = await openInside(root, join(root, 'src', 'a.txt'));
    try {
      expect((await handle.readFile()).toString()).toBe('inside\n');
    } finally {
      await handle.close();
    }
  });

  it('a write through a folder that became a link lands nowhere; a write inside makes its folders and keeps a mode', async () => {
    const { root, outside } = await layout();
    await expect(writeInside(root, join(root, 'swapped', 'planted'), 'x')).rejects.toThrow();
    expect(existsSync(join(outside, 'planted'))).toBe(false);
    await writeInside(root, join(root, 'new', 'deep', 'b.txt'), 'made\n');
    expect(readFileSync(join(root, 'new', 'deep', 'b.txt'), 'utf8')).toBe('made\n');
    await writeInside(root, join(root, 'src', 'a.txt'), 'changed\n', 0o755);
    expect(readFileSync(join(root, 'src', 'a.txt'), 'utf8')).toBe('changed\n');
    expect(statSync(join(root, 'src', 'a.txt')).mode & 0o777).toBe(0o755);
  });
});
