/**
 * A developer's Python lives in the home (pyenv's shims, uv's managed installs), which the
 * sandbox hides: a confined command and a gate must still find the same Python on the same PATH —
 * read-only, with nothing else of the home. Before, `python3 -m pytest` in a gate silently ran the
 * host's /usr/bin/python3 ("No module named pytest").
 */
import { chmodSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runNeo } from '../helpers/cli.js';
import { commitAll } from '../helpers/git.js';
import { tempDir, writeTree } from '../helpers/temp.js';

/** Runs `probe` as a bwrap step in place with `userHome` as HOME and `path` first on PATH; returns its stdout lines. */
async function probeIn(userHome: string, path: string, probe: string): Promise<string[]> {
  const root = await tempDir('neo-e2e-python-runtime-');
  const repo = join(root, 'repo');
  await writeTree(repo, {
    'plan.yaml': `name: py\nsandbox: bwrap\nworkspace: { isolation: inplace }\nsteps:\n  - { id: probe, run: '${probe}' }\n`,
  });
  await commitAll(repo);
  const run = await runNeo(['flow', 'run', 'plan.yaml', '--json'], {
    cwd: repo,
    env: { NEO_HOME: join(root, 'neo-home'), HOME: userHome, PATH: `${path}:${process.env.PATH ?? '/usr/bin:/bin'}` },
  });
  expect(run.exitCode, run.stdout + run.stderr).toBe(0);
  const summary = JSON.parse(run.stdout.trim().split('\n').at(-1)!) as {
    steps: Array<{ id: string; outputs?: { stdout?: string } }>;
  };
  return summary.steps[0]?.outputs?.stdout?.trim().split('\n') ?? [];
}

function executable(path: string): void {
  chmodSync(path, 0o755);
}

describe('a Python installed in the home, in bwrap', () => {
  it('pyenv: the shim finds its version through the lent root (PYENV_ROOT set); the rest of the home stays hidden, the root read-only', async () => {
    const userHome = await tempDir('neo-e2e-pyenv-home-');
    const pyenv = join(userHome, '.pyenv');
    await writeTree(userHome, {
      secret: 'user secret\n',
      '.pyenv/libexec/pyenv': '#!/bin/sh\n# pyenv itself\n',
      '.pyenv/shims/python3': '#!/bin/sh\nexec "$PYENV_ROOT/versions/9.9.0/bin/python3" "$@"\n',
      '.pyenv/versions/9.9.0/bin/python3': '#!/bin/sh\necho "pyenv python 9.9.0 from $PYENV_ROOT"\n',
      '.pyenv/versions/9.9.0/pip.conf': '[global]\nindex-url = https://me:PIPTOKEN@pypi.example/simple\n',
    });
    executable(join(pyenv, 'shims', 'python3'));
    executable(join(pyenv, 'versions', '9.9.0', 'bin', 'python3'));
    const probe = [
      'python3',
      'cat "$HOME/secret" 2>/dev/null || echo no-secret',
      '(touch "$PYENV_ROOT/versions/poison" 2>/dev/null && echo wrote) || echo read-only',
      'echo "pip:$(cat "$PYENV_ROOT/versions/9.9.0/pip.conf" 2>/dev/null)"',
    ].join(' && ');
    expect(await probeIn(userHome, join(pyenv, 'shims'), probe)).toEqual([
      `pyenv python 9.9.0 from ${pyenv}`,
      'no-secret',
      'read-only',
      'pip:',
    ]);
  });

  it('an install prefix on PATH (uv, conda): shown whole; the rest of ~/.local stays hidden', async () => {
    const userHome = await tempDir('neo-e2e-uv-home-');
    const prefix = join(userHome, '.local', 'share', 'uv', 'python', 'cpython-9.8.0-linux');
    await writeTree(userHome, {
      '.local/share/keyrings/login.keyring': 'KEYRING SECRET\n',
      '.local/share/uv/python/cpython-9.8.0-linux/bin/python3': '#!/bin/sh\necho "uv python 9.8.0"\n',
      '.local/share/uv/python/cpython-9.8.0-linux/lib/python9.8/os.py': '# the standard library\n',
    });
    executable(join(prefix, 'bin', 'python3'));
    const probe = 'python3 && (cat "$HOME/.local/share/keyrings/login.keyring" 2>/dev/null || echo no-keyring)';
    expect(await probeIn(userHome, join(prefix, 'bin'), probe)).toEqual(['uv python 9.8.0', 'no-keyring']);
  });

  it("a lent Python's own credential files stay hidden: pip's site pip.conf, conda's condarc and env vars, etc/", async () => {
    const userHome = await tempDir('neo-e2e-conda-home-');
    const conda = join(userHome, 'miniconda3');
    await writeTree(userHome, {
      'miniconda3/bin/python3': '#!/bin/sh\necho "conda python"\n',
      'miniconda3/lib/python9.7/os.py': '# the standard library\n',
      // `pip config --site set global.index-url …`, `conda config --system --add channels …/t/<token>/…`
      'miniconda3/pip.conf': '[global]\nindex-url = https://me:PIPTOKEN@pypi.example/simple\n',
      'miniconda3/.condarc': 'channels: [https://conda.example/t/CONDATOKEN/main]\n',
      'miniconda3/condarc.d/extra.yml': 'channels: [https://conda.example/t/CONDADTOKEN/main]\n',
      // `conda env config vars set API_KEY=…` keeps the value in the env's conda-meta/state.
      'miniconda3/envs/work/conda-meta/state': '{"env_vars": {"API_KEY": "ENVTOKEN"}}\n',
      'miniconda3/envs/work/pip.conf': '[global]\nindex-url = https://me:ENVPIPTOKEN@pypi.example/simple\n',
      'miniconda3/etc/conda/activate.d/keys.sh': 'export KEY=ACTIVATETOKEN\n',
      'miniconda3/pkgs/urls.txt': 'https://conda.example/t/PKGSTOKEN/main/linux-64/x.conda\n',
    });
    executable(join(conda, 'bin', 'python3'));
    const probe = [
      'python3',
      `cat ${conda}/pip.conf ${conda}/.condarc ${conda}/condarc.d/extra.yml ${conda}/envs/work/conda-meta/state ${conda}/envs/work/pip.conf ${conda}/etc/conda/activate.d/keys.sh ${conda}/pkgs/urls.txt 2>/dev/null`,
      'echo end',
    ].join('; ');
    expect(await probeIn(userHome, join(conda, 'bin'), probe)).toEqual(['conda python', 'end']);
  });

  it('a python3 in a folder that is no Python install (a plain ~/.local/bin script) is not lent', async () => {
    const userHome = await tempDir('neo-e2e-plain-home-');
    await writeTree(userHome, { '.local/bin/python3': '#!/bin/sh\necho "a script of the home"\n' });
    executable(join(userHome, '.local', 'bin', 'python3'));
    const lines = await probeIn(userHome, join(userHome, '.local', 'bin'), 'python3 -c "print(1)" 2>&1 || true');
    expect(lines).not.toContain('a script of the home');
  });
});
