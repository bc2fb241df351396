/**
 * The checkout's dependency folders lent to a workspace (engine/flow/workspace/lend.ts): what a
 * mirror holds, where its links lead, what it rewrites, and what a worktree keeps.
 */
import { lstatSync, mkdirSync, readFileSync, readlinkSync, realpathSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { GitRepo } from '../../../engine/execution/index.js';
import { lendFolders, lendToWorktree } from '../../../engine/flow/workspace/lend.js';
import { commitAll } from '../../helpers/git.js';
import { tempDir, writeTree } from '../../helpers/temp.js';
import { execa } from 'execa';

describe('lendFolders', () => {
  it('mirrors a node_modules: links below real folders, a scope one level deeper, no .cache, workspace packages to the workspace', async () => {
    const root = realpathSync(await tempDir('neo-lend-'));
    const checkout = join(root, 'app');
    const workspace = join(root, 'wt');
    await writeTree(checkout, {
      'packages/core/index.js': 'core\n',
      'node_modules/left-pad/index.js': 'pad\n',
      'node_modules/@babel/core/index.js': 'babel\n',
      'node_modules/.cache/x': 'cache\n',
    });
    symlinkSync('../../packages/core', join(checkout, 'node_modules', '@babel', 'app-core'));
    symlinkSync('left-pad', join(checkout, 'node_modules', 'pad-alias'));
    mkdirSync(workspace);
    await writeTree(workspace, { 'packages/core/index.js': 'core, changed\n' });

    const { lent, skipped } = await lendFolders({ checkout, workspace, folders: ['node_modules'] });
    expect(skipped).toEqual([]);
    expect(lent).toEqual([{ path: 'node_modules', from: join(checkout, 'node_modules') }]);
    const mirror = join(workspace, 'node_modules');
    expect(lstatSync(mirror).isDirectory()).toBe(true);
    expect(lstatSync(join(mirror, '@babel')).isDirectory()).toBe(true);
    expect(readlinkSync(join(mirror, 'left-pad'))).toBe(join(checkout, 'node_modules', 'left-pad'));
    expect(readFileSync(join(mirror, '@babel', 'core', 'index.js'), 'utf8')).toBe('babel\n');
    // A workspace package: the workspace's sources, not the checkout's.
    expect(readFileSync(join(mirror, '@babel', 'app-core', 'index.js'), 'utf8')).toBe('core, changed\n');
    // A link inside the folder leads to the mirror's counterpart.
    expect(readlinkSync(join(mirror, 'pad-alias'))).toBe(join(mirror, 'left-pad'));
    expect(lstatSync(join(mirror, '.cache'), { throwIfNoEntry: false })).toBeUndefined();
  });

  it("mirrors a virtualenv: files naming the checkout name the workspace, a sibling folder's name is left alone", async () => {
    const root = realpathSync(await tempDir('neo-lend-'));
    const checkout = join(root, 'app');
    const workspace = join(root, 'wt');
    const venv = join(checkout, '.venv');
    await writeTree(venv, {
      'pyvenv.cfg': 'home = /usr/bin\nversion = 3.11.2\n',
      'bin/pytest': `#!${venv}/bin/python\nimport pytest\n`,
      'bin/activate': `VIRTUAL_ENV="${venv}"\n`,
      'lib/python3.11/site-packages/_app.pth': `${checkout}/src\n${checkout}-old/src\n`,
      'lib/python3.11/site-packages/__editable___app_finder.py': `MAPPING = {'app': '${checkout}/src/app'}\n`,
      'lib/python3.11/site-packages/requests/__init__.py': 'x = 1\n',
    });
    symlinkSync('/usr/bin/python3', join(venv, 'bin', 'python'));
    symlinkSync('lib', join(venv, 'lib64'));
    mkdirSync(workspace);

    const { lent } = await lendFolders({ checkout, workspace, folders: ['.venv'] });
    expect(lent).toEqual([{ path: '.venv', from: venv, shows: ['/usr'] }]);
    const mirror = join(workspace, '.venv');
    expect(readFileSync(join(mirror, 'bin', 'pytest'), 'utf8')).toBe(`#!${mirror}/bin/python\nimport pytest\n`);
    expect(readFileSync(join(mirror, 'bin', 'activate'), 'utf8')).toBe(`VIRTUAL_ENV="${mirror}"\n`);
    const site = join(mirror, 'lib', 'python3.11', 'site-packages');
    expect(readFileSync(join(site, '_app.pth'), 'utf8')).toBe(`${workspace}/src\n${checkout}-old/src\n`);
    expect(readFileSync(join(site, '__editable___app_finder.py'), 'utf8')).toContain(`'${workspace}/src/app'`);
    expect(readlinkSync(join(site, 'requests'))).toBe(join(venv, 'lib', 'python3.11', 'site-packages', 'requests'));
    expect(readlinkSync(join(mirror, 'bin', 'python'))).toBe('/usr/bin/python3');
    expect(readlinkSync(join(mirror, 'lib64'))).toBe(join(mirror, 'lib'));
    expect(lstatSync(join(mirror, 'pyvenv.cfg')).isFile()).toBe(true);
  });
});

describe('lendToWorktree', () => {
  it('keeps a mirror only where the worktree ignores it (an uncommitted .gitignore does not reach it)', async () => {
    const root = realpathSync(await tempDir('neo-lend-'));
    const checkout = join(root, 'app');
    await writeTree(checkout, { 'src/index.js': 'x\n', 'web/index.js': 'y\n', '.gitignore': '/node_modules/\n' });
    await commitAll(checkout);
    await writeTree(checkout, {
      'node_modules/a/index.js': 'a\n',
      'web/node_modules/b/index.js': 'b\n',
      // Ignored in the checkout only: not committed.
      'web/.gitignore': 'node_modules/\n',
    });
    const worktree = join(root, 'wt');
    await execa('git', ['worktree', 'add', '-q', '--detach', worktree], { cwd: checkout });
    const source = (await GitRepo.discover(checkout))!;
    const created = (await GitRepo.discover(worktree))!;
    const { lent, warnings } = await lendToWorktree({ source, worktree: created, home: join(root, 'home') });
    expect(lent.map((folder) => folder.path)).toEqual(['node_modules']);
    expect(warnings).toEqual([
      "the checkout's web/node_modules is not lent to the worktree: the worktree's committed ignore rules do not ignore it (commit the .gitignore that does), so install it in a run step",
    ]);
    expect(lstatSync(join(worktree, 'web', 'node_modules'), { throwIfNoEntry: false })).toBeUndefined();
    expect(await execa('git', ['status', '--porcelain'], { cwd: worktree })).toMatchObject({ stdout: '' });
  });
});
