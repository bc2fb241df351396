/**
 * A developer's Node lives in the home (nvm), which the sandbox hides: a confined command, a gate
 * and an agent CLI started with `#!/usr/bin/env node` must still find the same Node and its
 * global packages on the same PATH — read-only, with nothing else of the home, and without the
 * install's `etc/npmrc` (where a global registry token lives).
 */
import { linkSync, copyFileSync, chmodSync, mkdirSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runNeo } from '../helpers/cli.js';
import { tempDir, writeTree } from '../helpers/temp.js';
import { git } from './flow-helpers.js';

describe('a Node installed in the home, in bwrap', () => {
  it('a run step and a gate find it and its global packages on their PATH; its etc/ and the rest of the home stay hidden', async () => {
    const root = await tempDir('neo-e2e-nvm-');
    const repo = join(root, 'repo');
    const home = join(root, 'neo-home');
    const userHome = join(root, 'user');
    const prefix = join(userHome, '.nvm', 'versions', 'node', 'v99.0.0');
    mkdirSync(join(prefix, 'bin'), { recursive: true });
    try {
      linkSync(process.execPath, join(prefix, 'bin', 'node'));
    } catch {
      copyFileSync(process.execPath, join(prefix, 'bin', 'node'));
      chmodSync(join(prefix, 'bin', 'node'), 0o755);
    }
    await writeTree(userHome, {
      '.nvm/nvm.sh': '# nvm itself\n',
      secret: 'user secret\n',
      '.nvm/versions/node/v99.0.0/etc/npmrc': '//registry.npmjs.org/:_authToken=npm_SECRET\n',
      '.nvm/versions/node/v99.0.0/lib/node_modules/hello/cli.js':
        "#!/usr/bin/env node\nconsole.log('hello from a global package under', process.execPath);\n",
    });
    chmodSync(join(prefix, 'lib', 'node_modules', 'hello', 'cli.js'), 0o755);
    symlinkSync('../lib/node_modules/hello/cli.js', join(prefix, 'bin', 'hello'));
    const probe = [
      'hello',
      'ls -A "$HOME/.nvm"',
      'cat "$HOME/.nvm/versions/node/v99.0.0/etc/npmrc" 2>/dev/null || echo no-npmrc',
      'cat "$HOME/secret" 2>/dev/null || echo no-secret',
    ].join(' && ');
    await writeTree(repo, {
      'README.md': 'hello\n',
      'writes.yaml': 'turns:\n  - actions:\n      - write: { path: note.txt, content: "a note\\n" }\n',
      'plan.yaml':
        `name: nvm\ndefaults: { backend: script, maxPosture: acceptEdits }\nsandbox: bwrap\nsteps:\n` +
        `  - { id: probe, run: '${probe}' }\n` +
        `  - id: work\n    needs: [probe]\n    brief: write a note\n    script: writes.yaml\n    verify: 'hello'\n`,
    });
    await git(repo, 'init', '-q', '-b', 'main');
    await git(repo, 'add', '-A');
    await git(repo, '-c', 'user.name=t', '-c', 'user.email=t@example.com', 'commit', '-qm', 'init');
    const run = await runNeo(['flow', 'run', 'plan.yaml', '--json'], {
      cwd: repo,
      env: { NEO_HOME: home, HOME: userHome, PATH: `${join(prefix, 'bin')}:${process.env.PATH ?? '/usr/bin:/bin'}` },
    });
    expect(run.exitCode, run.stdout + run.stderr).toBe(0);
    const summary = JSON.parse(run.stdout.trim().split('\n').at(-1)!) as {
      steps: Array<{ id: string; outputs?: { stdout?: string } }>;
    };
    const probed = summary.steps
      .find((s) => s.id === 'probe')
      ?.outputs?.stdout?.trim()
      .split('\n');
    expect(probed).toEqual([
      `hello from a global package under ${join(prefix, 'bin', 'node')}`,
      'versions',
      'no-npmrc',
      'no-secret',
    ]);
  });
});
