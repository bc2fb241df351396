/**
 * GitMetaWatch on real repositories: what decides what git runs, compared with a step's start,
 * and the layout files that lead git where no untampered work tree does.
 */
import { execa } from 'execa';
import { chmod, mkdir, rename, rm, symlink, writeFile } from 'node:fs/promises';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { GitRepo } from '../../../engine/execution/index.js';
import { GitMetaWatch, gitLayout, gitReadOnly } from '../../../engine/flow/workspace/git-meta.js';
import type { WorkspaceRecord } from '../../../engine/flow/store/run-files.js';
import { tempDir, writeTree } from '../../helpers/temp.js';
import { git } from '../../e2e/flow-helpers.js';

async function repo(): Promise<string> {
  const dir = join(await tempDir('neo-gitmeta-'), 'repo');
  await writeTree(dir, { 'a.txt': 'a\n' });
  await git(dir, 'init', '-q', '-b', 'main');
  await git(dir, 'add', '-A');
  await git(dir, '-c', 'user.name=t', '-c', 'user.email=t@example.com', 'commit', '-qm', 'init');
  return dir;
}

const inplace = (root: string): WorkspaceRecord => ({
  isolation: 'inplace',
  path: root,
  root,
  projectDir: root,
  repo: root,
});

describe('GitMetaWatch', () => {
  it('in place: a hook, the config, info/, commondir and alternates count; a commit does not', async () => {
    const root = await repo();
    const watch = await GitMetaWatch.open(inplace(root));
    await writeFile(join(root, 'b.txt'), 'b\n');
    await git(root, 'add', '-A');
    await git(root, '-c', 'user.name=t', '-c', 'user.email=t@example.com', 'commit', '-qm', 'two');
    expect(watch.tampered()).toEqual([]);
    await writeFile(join(root, '.git', 'hooks', 'pre-commit'), '#!/bin/sh\n');
    await chmod(join(root, '.git', 'hooks', 'pre-commit'), 0o755);
    await writeFile(join(root, '.git', 'info', 'attributes'), '* filter=x\n');
    await writeFile(join(root, '.git', 'objects', 'info', 'alternates'), '/elsewhere\n');
    await git(root, 'config', 'core.fsmonitor', 'touch pwned');
    await writeFile(join(root, '.git', 'commondir'), '/elsewhere\n');
    expect(watch.tampered()).toEqual(
      ['commondir', 'config', 'hooks/pre-commit', 'info/attributes', 'objects/info/alternates'].map((f) =>
        join(root, '.git', f),
      ),
    );
  });

  it("the next step's watch, opened as a clean check ends, starts from that check: a change in between is named", async () => {
    const root = await repo();
    const record = inplace(root);
    const first = await GitMetaWatch.open(record);
    expect(first.tampered()).toEqual([]);
    // In the same turn of the event loop (a parallel step's process could write here meanwhile).
    writeFileSync(join(root, '.git', 'hooks', 'post-checkout'), '#!/bin/sh\n');
    const next = await GitMetaWatch.open(record);
    expect(next.tampered()).toEqual([join(root, '.git', 'hooks', 'post-checkout')]);
    // A watch opened in a later turn takes its own stamp: what was there before it is not its step's.
    await new Promise((resolve) => setImmediate(resolve));
    const later = await GitMetaWatch.open(record);
    expect(later.tampered()).toEqual([]);
  });

  it('a commondir in a main git dir counts even when it was there before the stamp', async () => {
    const root = await repo();
    await writeFile(join(root, '.git', 'commondir'), '/elsewhere\n');
    const watch = await GitMetaWatch.open(inplace(root));
    expect(watch.tampered()).toEqual([join(root, '.git', 'commondir')]);
  });

  it("a worktree: its .git file and git dir count, another worktree's arrival does not", async () => {
    const source = await repo();
    const root = join(source, '..', 'wt');
    await git(source, 'worktree', 'add', '-q', '-b', 'neo/x', root);
    const gitDir = join(source, '.git', 'worktrees', 'wt');
    const record: WorkspaceRecord = {
      isolation: 'worktree',
      path: root,
      root,
      projectDir: source,
      repo: source,
      gitDir,
      commonDir: join(source, '.git'),
    };
    expect(gitLayout(record)).toEqual({ dotGit: join(root, '.git'), gitDir, commonDir: join(source, '.git') });
    const watch = await GitMetaWatch.open(record);
    await git(source, 'worktree', 'add', '-q', '-b', 'neo/y', join(source, '..', 'other'));
    expect(watch.tampered()).toEqual([]);
    await writeFile(join(root, '.git'), `gitdir: ${join(source, '..', 'evil')}\n`);
    await writeFile(join(gitDir, 'commondir'), '/elsewhere\n');
    expect(watch.tampered()).toEqual([join(gitDir, 'commondir'), join(root, '.git')].sort());
  });

  it('a copy: a .git planted at its root counts; so does its source repository', async () => {
    const source = await repo();
    const root = join(source, '..', 'copy');
    await mkdir(root);
    const record: WorkspaceRecord = { isolation: 'copy', path: root, root, projectDir: source };
    const watch = await GitMetaWatch.open(record);
    await mkdir(join(root, '.git'));
    await symlink('/etc', join(source, '.git', 'hooks', 'post-checkout'));
    expect(watch.tampered()).toEqual([join(root, '.git'), join(source, '.git', 'hooks', 'post-checkout')].sort());
  });

  it("a FIFO planted as a worktree's .git is named, never opened (nothing waits on it)", async () => {
    const source = await repo();
    const root = join(source, '..', 'wt');
    await git(source, 'worktree', 'add', '-q', '-b', 'neo/x', root);
    const gitDir = join(source, '.git', 'worktrees', 'wt');
    const commonDir = join(source, '.git');
    const record: WorkspaceRecord = {
      isolation: 'worktree',
      path: root,
      root,
      projectDir: source,
      repo: source,
      gitDir,
      commonDir,
    };
    const watch = await GitMetaWatch.open(record);
    await rm(join(root, '.git'));
    await execa('mkfifo', [join(root, '.git')]);
    expect(watch.tampered()).toEqual([join(root, '.git')]);
    await expect(GitRepo.pinned({ top: root, gitDir, commonDir }).verify()).rejects.toMatchObject({
      code: 'GIT_DIR_CHANGED',
    });
  });
});

describe('gitReadOnly: what a sandbox shows of the git metadata', () => {
  it("a worktree's .git file and its recorded git dirs, wherever they lie", async () => {
    const source = await repo();
    const root = join(source, '..', 'wt');
    await git(source, 'worktree', 'add', '-q', '-b', 'neo/x', root);
    const gitDir = join(source, '.git', 'worktrees', 'wt');
    const commonDir = join(source, '.git');
    const record: WorkspaceRecord = {
      isolation: 'worktree',
      path: root,
      root,
      projectDir: source,
      repo: source,
      gitDir,
      commonDir,
    };
    expect(gitReadOnly(record)).toEqual([join(root, '.git'), gitDir, commonDir]);
  });

  it('never a folder that workspace content names outside the workspace, nor a link planted as .git', async () => {
    const root = await repo();
    const secret = join(root, '..', 'home');
    await mkdir(secret);
    const record = inplace(root);
    expect(gitReadOnly(record)).toEqual([join(root, '.git')]);
    await writeFile(join(root, '.git', 'commondir'), `${secret}\n`);
    expect(gitReadOnly(record)).toEqual([join(root, '.git')]);
    await rename(join(root, '.git'), join(root, '..', 'moved-git'));
    await symlink(secret, join(root, '.git'));
    expect(gitReadOnly(record)).toEqual([]);
    await rm(join(root, '.git'));
    await writeFile(join(root, '.git'), `gitdir: ${secret}\n`);
    expect(gitReadOnly(record)).toEqual([join(root, '.git')]);
  });

  it('a workspace that started without git gets nothing bound, whatever a step planted', async () => {
    const root = join(await tempDir('neo-gitro-'), 'copy');
    await mkdir(join(root, '.git'), { recursive: true });
    expect(gitReadOnly({ isolation: 'copy', path: root, root, projectDir: root })).toEqual([]);
    expect(gitReadOnly({ isolation: 'inplace', path: root, root, projectDir: root })).toEqual([]);
  });
});
