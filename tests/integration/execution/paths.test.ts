import { mkdir, mkdtemp, realpath, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { confinePath, resolveRealPath } from '../../../engine/execution/index.js';

let base: string;
let ws: string;
let outside: string;

beforeEach(async () => {
  base = await realpath(await mkdtemp(join(tmpdir(), 'neo-paths-')));
  ws = join(base, 'ws');
  outside = join(base, 'outside');
  await mkdir(join(ws, 'src'), { recursive: true });
  await mkdir(outside);
  await writeFile(join(outside, 'secret'), 'x');
  await symlink(outside, join(ws, 'out'));
  await symlink(join(ws, 'src'), join(ws, 'in'));
  await symlink(join(base, 'nothing'), join(ws, 'dangling'));
  await mkdir(join(ws, '.git'));
  await symlink(join(ws, '.git'), join(ws, 'innocent'));
});
afterEach(async () => {
  await rm(base, { recursive: true, force: true });
});

describe('resolveRealPath follows a path the way the kernel does', () => {
  it('resolves symlinked folders, keeps the part that does not exist, applies .. to the real place', async () => {
    expect((await resolveRealPath(ws, 'src/new/file.ts')).real).toBe(join(ws, 'src/new/file.ts'));
    expect((await resolveRealPath(ws, 'out/secret')).real).toBe(join(outside, 'secret'));
    expect((await resolveRealPath(ws, 'in/a.ts')).real).toBe(join(ws, 'src/a.ts'));
    // `out/..` is the parent of where `out` leads, not the workspace.
    expect((await resolveRealPath(ws, 'out/../ws/x')).real).toBe(join(base, 'ws/x'));
    expect((await resolveRealPath(ws, `${ws}/../outside/secret`)).real).toBe(join(outside, 'secret'));
  });

  it('refuses a dangling symlink and a NUL byte', async () => {
    expect((await resolveRealPath(ws, 'dangling')).problem).toMatch(/dangling/);
    expect((await resolveRealPath(ws, 'dangling/x')).problem).toMatch(/dangling/);
    expect((await resolveRealPath(ws, 'a\0b')).problem).toMatch(/NUL/);
  });
});

describe('confinePath', () => {
  it('keeps paths inside the workspace and says why others are refused', async () => {
    expect(await confinePath(ws, 'in/a.ts', { refuseGit: true })).toEqual({
      path: join(ws, 'src/a.ts'),
      entry: join(ws, 'src/a.ts'),
    });
    // A final symlink: the target is checked, the entry (for a delete or rename) is the link.
    await writeFile(join(ws, 'src/target.ts'), '');
    await symlink(join(ws, 'src/target.ts'), join(ws, 'lnk'));
    expect(await confinePath(ws, 'lnk', { refuseGit: true })).toEqual({
      path: join(ws, 'src/target.ts'),
      entry: join(ws, 'lnk'),
    });
    for (const path of ['out/secret', '../outside/secret', join(outside, 'secret'), 'dangling']) {
      const confined = await confinePath(ws, path, { refuseGit: false });
      expect('problem' in confined, path).toBe(true);
    }
    const git = await confinePath(ws, 'innocent/config', { refuseGit: true });
    expect('problem' in git && git.problem.why).toBe('git');
    expect('path' in (await confinePath(ws, 'innocent/config', { refuseGit: false }))).toBe(true);
  });
});
