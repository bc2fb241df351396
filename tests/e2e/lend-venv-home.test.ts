/**
 * A run in `worktree` (or `copy`) isolation lends the checkout's virtualenvs and shows, read-only
 * in every sandbox of the run, the Python install a venv's `pyvenv.cfg` names (`home = …`): it is
 * often under the hidden home (pyenv, uv). That file lies in the checkout, ignored by git, where
 * an earlier `inplace` run's confined step could write it: `home = <NEO_HOME>` showed the next
 * run's sandboxes the store key and the user's `.env`, and `home = ~/.ssh` the user's keys. A venv
 * base is shown only where its `home` is a `bin` folder holding a Python in a real prefix (`lib/pythonX.Y/os.py`:
 * `~/.local/bin/python3` made `~/.local` with its keyrings shown), and no shown folder may
 * hold NEO_HOME or the home.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runNeo } from '../helpers/cli.js';
import { tempDir, writeTree } from '../helpers/temp.js';
import { git } from './flow-helpers.js';

describe("a lent virtualenv's base Python", () => {
  it.each([
    ['NEO_HOME', (root: string) => join(root, 'neo-home'), 'neo-home/.env'],
    ['a folder of the hidden home', (root: string) => join(root, '.ssh'), '.ssh/id_test'],
    [
      '~/.local/bin, which holds a python3',
      (root: string) => join(root, '.local', 'bin'),
      '.local/share/keyrings/login',
    ],
  ])(
    'a pyvenv.cfg a confined step pointed at %s shows nothing of it to the next run',
    async (_, target, secretFile) => {
      const root = await tempDir('neo-e2e-lend-venv-');
      const repo = join(root, 'repo');
      const home = join(root, 'neo-home');
      await mkdir(join(root, '.ssh'), { recursive: true });
      await mkdir(home, { recursive: true });
      await writeFile(join(home, '.env'), 'NEO_TEST_KEY=sk-user-secret\n');
      await writeFile(join(root, '.ssh', 'id_test'), 'sk-user-secret\n');
      // A user-level install's link (pipx, uv) in ~/.local/bin: ~/.local is no Python prefix.
      await mkdir(join(root, '.local', 'bin'), { recursive: true });
      await mkdir(join(root, '.local', 'share', 'keyrings'), { recursive: true });
      await writeFile(join(root, '.local', 'bin', 'python3'), '#!/bin/sh\n', { mode: 0o755 });
      await writeFile(join(root, '.local', 'share', 'keyrings', 'login'), 'sk-user-secret\n');
      await writeTree(repo, {
        '.gitignore': '.venv/\n',
        'plant.flow.yaml': [
          'name: plant',
          'sandbox: bwrap',
          'workspace: { isolation: inplace }',
          'steps:',
          `  - { id: a, run: 'mkdir -p .venv/bin && printf "home = ${target(root)}\\n" > .venv/pyvenv.cfg' }`,
          '',
        ].join('\n'),
        'read.flow.yaml': [
          'name: read',
          'sandbox: bwrap',
          'steps:',
          `  - { id: b, run: 'cat ${join(root, secretFile)} || true' }`,
          '',
        ].join('\n'),
      });
      await git(repo, 'init', '-q', '-b', 'main');
      await git(repo, 'add', '-A');
      await git(repo, '-c', 'user.name=t', '-c', 'user.email=t@example.com', 'commit', '-qm', 'init');
      const neo = (args: string[]) => runNeo(args, { cwd: repo, env: { NEO_HOME: home, HOME: root } });

      const planted = await neo(['flow', 'run', 'plant.flow.yaml']);
      expect(planted.exitCode, planted.stdout + planted.stderr).toBe(0);
      const read = await neo(['flow', 'run', 'read.flow.yaml', '--json']);
      expect(read.exitCode, read.stdout + read.stderr).toBe(0);
      expect(read.stdout + read.stderr).not.toContain('sk-user-secret');
    },
  );

  it("a real Python prefix under the home (pyenv's) is shown to the next run's sandboxes, without the user's own files in it", async () => {
    const root = await tempDir('neo-e2e-lend-venv-');
    const repo = join(root, 'repo');
    const prefix = join(root, '.pyenv', 'versions', '3.12.1');
    await writeTree(prefix, {
      'bin/python3': '#!/bin/sh\n',
      'lib/python3.12/os.py': '# real-prefix-marker\n',
      // The install's own settings: pip's site config (an index token), conda's env vars.
      'pip.conf': '[global]\nindex-url = https://me:sk-user-secret@pypi.example/simple\n',
      'conda-meta/state': '{"env_vars": {"API_KEY": "sk-user-secret"}}\n',
    });
    await writeTree(repo, {
      '.gitignore': '.venv/\n',
      '.venv/pyvenv.cfg': `home = ${join(prefix, 'bin')}\n`,
      'read.flow.yaml': [
        'name: read',
        'sandbox: bwrap',
        'steps:',
        `  - { id: b, run: 'cat ${join(prefix, 'lib', 'python3.12', 'os.py')}; cat ${join(prefix, 'pip.conf')} ${join(prefix, 'conda-meta', 'state')} 2>/dev/null; true' }`,
        '',
      ].join('\n'),
    });
    await git(repo, 'init', '-q', '-b', 'main');
    await git(repo, 'add', '-A');
    await git(repo, '-c', 'user.name=t', '-c', 'user.email=t@example.com', 'commit', '-qm', 'init');
    const read = await runNeo(['flow', 'run', 'read.flow.yaml', '--json'], {
      cwd: repo,
      env: { NEO_HOME: join(root, 'neo-home'), HOME: root },
    });
    expect(read.exitCode, read.stdout + read.stderr).toBe(0);
    expect(read.stdout).toContain('real-prefix-marker');
    expect(read.stdout).not.toContain('sk-user-secret');
  });
});
