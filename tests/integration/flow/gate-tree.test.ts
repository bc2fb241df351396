/**
 * The gate's fresh tree on real folders: git's view of the workspace (an ignored file the agent
 * made is not there), the protected paths as they were at the base (never written through a
 * link), the base's dependency folders shown read-only and stamped (an edit that keeps size and
 * mtime is still a change), the same outside git, and every record neo reads back authenticated.
 */
import { existsSync, lstatSync, readFileSync, readlinkSync, statSync } from 'node:fs';
import { execa } from 'execa';
import { mkdir, realpath, rm, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { GateTrees, gateUnitDir, readOnlyPaths } from '../../../engine/flow/workspace/gate-tree.js';
import { ProtectedBase } from '../../../engine/flow/workspace/protected-base.js';
import { changedPaths } from '../../../engine/flow/workspace/private-snapshot.js';
import type { WorkspaceRecord } from '../../../engine/flow/store/run-files.js';
import { commitAll } from '../../helpers/git.js';
import { tempDir, writeTree } from '../../helpers/temp.js';

const DEP = 'module.exports = 2;\n';

async function workspace(files: Record<string, string>, options: { git: boolean }) {
  const base = await realpath(await tempDir('neo-gate-tree-'));
  const root = join(base, 'ws');
  const home = join(base, 'home');
  await writeTree(root, files);
  if (options.git) await commitAll(root);
  const record: WorkspaceRecord = options.git
    ? { isolation: 'inplace', path: root, root, projectDir: root, repo: root }
    : { isolation: 'copy', path: root, root, projectDir: root };
  const open = async (protect?: string[], startedAt = 'first') => {
    const dir = gateUnitDir(home, 'run-1', 'fix.0');
    const guarded =
      protect === undefined
        ? undefined
        : await ProtectedBase.open({
            root,
            dir: join(dir, 'protected'),
            home,
            scope: 'run-1/fix.0',
            startedAt,
            globs: protect,
          });
    return GateTrees.open({
      workspace: record,
      home,
      dir,
      scope: 'run-1/fix.0',
      startedAt,
      ...(guarded === undefined ? {} : { protected: guarded }),
    });
  };
  return { root, home, open, unit: gateUnitDir(home, 'run-1', 'fix.0') };
}

const read = (path: string) => readFileSync(path, 'utf8');

/** Rewrites a file and puts its mtime back to the nanosecond (`touch -r`): only its ctime tells. */
async function rewriteKeepingTimes(file: string, content: string): Promise<void> {
  await execa('cp', ['--preserve=timestamps', file, `${file}.ref`]);
  await new Promise((resolve) => setTimeout(resolve, 20));
  await writeFile(file, content);
  await execa('touch', ['-r', `${file}.ref`, file]);
  await rm(`${file}.ref`);
}

describe("the gate's fresh tree", () => {
  it("is git's view of the workspace: edits and untracked files, no ignored file; the base's dependencies shown", async () => {
    const { root, open, unit } = await workspace(
      {
        'src/a.js': 'a\n',
        '.gitignore': 'node_modules/\n*.log\n',
        'node_modules/dep/index.js': DEP,
      },
      { git: true },
    );
    const trees = await open();
    await writeFile(join(root, 'src/a.js'), 'edited\n');
    await writeFile(join(root, 'src/new.js'), 'new\n');
    await writeFile(join(root, 'debug.log'), 'ignored\n');

    const boxed = await trees.fresh({ confined: true, cwd: root });
    expect(boxed.dir.startsWith(unit)).toBe(true);
    expect((statSync(boxed.dir).mode & 0o777).toString(8)).toBe('700');
    expect(read(join(boxed.dir, 'src/a.js'))).toBe('edited\n');
    expect(read(join(boxed.dir, 'src/new.js'))).toBe('new\n');
    expect(existsSync(join(boxed.dir, 'debug.log'))).toBe(false);
    expect(existsSync(join(boxed.dir, 'node_modules'))).toBe(false);
    expect(boxed.binds).toEqual([
      { path: join(root, '.git'), at: join(root, '.git') },
      { path: join(root, 'node_modules') },
    ]);
    expect(boxed.cwd).toBe(root);
    expect(boxed.judged.entries.get('src/a.js')).toMatch(/^100644 [0-9a-f]{40}$/);
    await boxed.dispose();
    expect(existsSync(boxed.dir)).toBe(false);

    const open_ = await trees.fresh({ confined: false, cwd: join(root, 'src') });
    expect(readlinkSync(join(open_.dir, 'node_modules'))).toBe(join(root, 'node_modules'));
    expect(read(join(open_.dir, '.git'))).toBe(`gitdir: ${join(root, '.git')}\n`);
    expect(open_.cwd).toBe(join(open_.dir, 'src'));
    await open_.dispose();
  });

  it('holds the protected paths as at the base, never writing through a link, and binds them read-only', async () => {
    const outside = await tempDir('neo-gate-outside-');
    await writeFile(join(outside, 't.js'), 'outside\n');
    const { root, open } = await workspace(
      { 'src/a.js': 'a\n', 'test/t.js': 'original\n', 'test/u.js': 'u\n', 'package.json': '{}\n' },
      { git: false },
    );
    // A link among the tests, and a virtualenv whose own package.json is not the project's
    // (outside git: the same view through a private index).
    await symlink('t.js', join(root, 'test/link.js'));
    await writeTree(root, { '.venv/pyvenv.cfg': 'home = /usr/bin\n', '.venv/lib/package.json': '{}\n' });
    const trees = await open(['test/**', '**/package.json']);
    await writeFile(join(root, 'test/extra.js'), 'added\n');
    await rm(join(root, 'package.json'));
    await writeFile(join(root, 'src/a.js'), 'edited\n');
    // The test folder becomes a link to a folder outside: a restore must not write there.
    await rm(join(root, 'test'), { recursive: true });
    await symlink(outside, join(root, 'test'));

    const tree = await trees.fresh({ confined: true, cwd: root });
    expect(lstatSync(join(tree.dir, 'test')).isDirectory()).toBe(true);
    expect(read(join(tree.dir, 'test/t.js'))).toBe('original\n');
    expect(readlinkSync(join(tree.dir, 'test/link.js'))).toBe('t.js');
    expect(existsSync(join(tree.dir, '.venv'))).toBe(false);
    expect(read(join(tree.dir, 'package.json'))).toBe('{}\n');
    expect(existsSync(join(tree.dir, 'test/extra.js'))).toBe(false);
    expect(read(join(tree.dir, 'src/a.js'))).toBe('edited\n');
    expect(read(join(outside, 't.js'))).toBe('outside\n');
    expect(tree.binds.filter((b) => b.path.startsWith(tree.dir))).toEqual([
      { path: join(tree.dir, 'package.json'), at: join(root, 'package.json') },
      { path: join(tree.dir, 'test'), at: join(root, 'test') },
    ]);
    await tree.dispose();
    expect(read(join(outside, 't.js'))).toBe('outside\n');
  });

  it('refuses a tampered original or manifest (FLOW_PROTECTED_TAMPERED)', async () => {
    const { root, home, open, unit } = await workspace({ 'test/t.js': 'original\n' }, { git: true });
    const trees = await open(['test/**']);
    await writeFile(join(unit, 'protected', 'files', 'test', 't.js'), 'planted\n');
    await expect(trees.fresh({ confined: true, cwd: root })).rejects.toMatchObject({ code: 'FLOW_PROTECTED_TAMPERED' });

    const manifest = join(unit, 'protected', 'manifest.json');
    await writeFile(manifest, read(manifest).replace(/"mac":"[0-9a-f]/, '"mac":"x'));
    await expect(
      ProtectedBase.open({
        root,
        dir: join(unit, 'protected'),
        home,
        scope: 'run-1/fix.0',
        startedAt: 'first',
        globs: ['test/**'],
      }),
    ).rejects.toMatchObject({ code: 'FLOW_PROTECTED_TAMPERED' });
  });

  it('sees a dependency folder changed since the base, even with its size and mtime kept', async () => {
    const { root, open } = await workspace(
      { '.gitignore': 'node_modules/\n', 'node_modules/dep/index.js': DEP, 'a.js': 'a\n' },
      { git: true },
    );
    const trees = await open();
    expect(await trees.dependencyChanges()).toEqual([]);
    const file = join(root, 'node_modules/dep/index.js');
    const before = statSync(file, { bigint: true });
    await rewriteKeepingTimes(file, DEP.replace('2', '3'));
    expect(statSync(file, { bigint: true })).toMatchObject({ size: before.size, mtimeNs: before.mtimeNs });
    expect(await trees.dependencyChanges()).toEqual(['node_modules']);
    await expect(trees.fresh({ confined: true, cwd: root })).rejects.toMatchObject({
      code: 'FLOW_GATE_DEPENDENCIES_CHANGED',
    });
  });

  it('names the same content with the same id; an exact snapshot sees an edit that kept size and mtime', async () => {
    const { root, open } = await workspace({ 'a.js': 'one\n' }, { git: true });
    await execa('touch', ['-d', '2020-01-01T00:00:00Z', join(root, 'a.js')]);
    const trees = await open();
    const first = await trees.snapshot();
    expect((await trees.snapshot()).id).toBe(first.id);
    expect((await trees.snapshot({ exact: true })).id).toBe(first.id);
    const before = statSync(join(root, 'a.js'), { bigint: true });
    // Within the second git compares times to, its mtime put back: only hashing it tells.
    await rewriteKeepingTimes(join(root, 'a.js'), 'two\n');
    expect(statSync(join(root, 'a.js'), { bigint: true })).toMatchObject({
      size: before.size,
      mtimeNs: before.mtimeNs,
    });
    const exact = await trees.snapshot({ exact: true });
    expect(exact.id).not.toBe(first.id);
    expect(changedPaths(first, exact)).toEqual(['a.js']);
  });

  it('outside git: every file but the dependency folders (found by name or pyvenv.cfg); .gitignore still applies', async () => {
    const { root, open } = await workspace(
      {
        'src/a.js': 'a\n',
        '.gitignore': '*.log\n',
        'node_modules/dep/index.js': DEP,
        'env/pyvenv.cfg': 'home = /usr/bin\n',
      },
      { git: false },
    );
    const trees = await open();
    await writeFile(join(root, 'debug.log'), 'ignored\n');
    await mkdir(join(root, 'src/new'), { recursive: true });
    await writeFile(join(root, 'src/new/b.js'), 'b\n');
    const tree = await trees.fresh({ confined: true, cwd: root });
    expect(read(join(tree.dir, 'src/new/b.js'))).toBe('b\n');
    expect(existsSync(join(tree.dir, 'debug.log'))).toBe(false);
    expect(existsSync(join(tree.dir, 'node_modules'))).toBe(false);
    expect(tree.binds).toEqual([{ path: join(root, 'env') }, { path: join(root, 'node_modules') }]);
    await tree.dispose();
  });
});

describe('readOnlyPaths', () => {
  it('binds a folder whose every file is protected as one, the others file by file', () => {
    expect(readOnlyPaths(['a/x', 'a/y', 'b/z', 'c'], ['a/x', 'a/y', 'c'])).toEqual(['a', 'c']);
    expect(readOnlyPaths(['a/x', 'a/y', 'a/sub/w', 'c'], ['a/x', 'a/y'])).toEqual(['a/x', 'a/y']);
    expect(readOnlyPaths(['t/a/x', 't/b/y', 'src/z'], ['t/a/x', 't/b/y'])).toEqual(['t']);
  });

  it('past its cap, binds the folders of the deepest protected files instead (their neighbours read-only too)', () => {
    const files = ['a/b/x.test', 'a/b/x', 'a/c/y.test', 'a/c/y', 'd/z.test', 'd/z', 'top.test'];
    const guarded = files.filter((f) => f.endsWith('.test'));
    expect(readOnlyPaths(files, guarded)).toEqual(['a/b/x.test', 'a/c/y.test', 'd/z.test', 'top.test']);
    expect(readOnlyPaths(files, guarded, 3)).toEqual(['a', 'd', 'top.test']);
    expect(readOnlyPaths(files, guarded, 1)).toEqual(['a', 'd', 'top.test']);
  });
});
