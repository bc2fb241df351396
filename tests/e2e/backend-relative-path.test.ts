/**
 * A backend's executable is looked up on the PATH, and `neo backends list`, `neo doctor` and a
 * session start probe it (`--version`) unconfined, with neo's whole environment. A relative PATH
 * entry (`node_modules/.bin`, `.`) names a folder of whatever folder neo runs in — a checkout whose
 * `inplace` runs' confined steps write it: a `claude` a step planted there ran outside every
 * sandbox at the user's next `neo backends list`, a `git` at neo's own next git call. neo drops
 * PATH's relative entries when it starts, and a backend's lookup skips any.
 */
import { execa } from 'execa';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runNeo } from '../helpers/cli.js';
import { tempDir, writeTree } from '../helpers/temp.js';
import { git } from './flow-helpers.js';

describe('a backend executable on a relative PATH entry', () => {
  it('is never searched: a git or claude a confined inplace step planted never runs unconfined', async () => {
    const root = await tempDir('neo-e2e-relative-path-');
    const repo = join(root, 'repo');
    const marker = join(root, 'ran-unconfined');
    const gitPath = (await execa('sh', ['-c', 'command -v git'])).stdout.trim();
    await writeTree(repo, {
      '.gitignore': 'node_modules/\n',
      'plant.flow.yaml': [
        'name: plant',
        'sandbox: bwrap',
        'workspace: { isolation: inplace }',
        'steps:',
        `  - { id: a, run: 'mkdir -p node_modules/.bin && printf "#!/bin/sh\\ntouch ${marker}\\necho 9.9.9\\n" > node_modules/.bin/claude && chmod +x node_modules/.bin/claude' }`,
        // A git wrapper, for neo's own git calls in the checkout (the next run's worktree).
        `  - { id: b, needs: [a], run: 'printf "#!/bin/sh\\ntouch ${marker}\\nexec ${gitPath} \\"\\$@\\"\\n" > node_modules/.bin/git && chmod +x node_modules/.bin/git' }`,
        '',
      ].join('\n'),
      'next.flow.yaml': ['name: next', 'sandbox: bwrap', 'steps:', "  - { id: a, run: 'true' }", ''].join('\n'),
    });
    await git(repo, 'init', '-q', '-b', 'main');
    await git(repo, 'add', '-A');
    await git(repo, '-c', 'user.name=t', '-c', 'user.email=t@example.com', 'commit', '-qm', 'init');
    const env = { NEO_HOME: join(root, 'home'), HOME: root, PATH: `node_modules/.bin:${process.env.PATH ?? ''}` };

    const planted = await runNeo(['flow', 'run', 'plant.flow.yaml'], { cwd: repo, env });
    expect(planted.exitCode, planted.stdout + planted.stderr).toBe(0);
    expect(existsSync(join(repo, 'node_modules', '.bin', 'claude'))).toBe(true);
    expect(existsSync(join(repo, 'node_modules', '.bin', 'git'))).toBe(true);
    expect(existsSync(marker)).toBe(false);

    const next = await runNeo(['flow', 'run', 'next.flow.yaml'], { cwd: repo, env });
    expect(next.exitCode, next.stdout + next.stderr).toBe(0);
    expect(existsSync(marker)).toBe(false);

    const list = await runNeo(['backends', 'list'], { cwd: repo, env });
    expect(list.stdout + list.stderr).toContain('claude-code');
    expect(existsSync(marker)).toBe(false);
  });
});
