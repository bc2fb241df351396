/**
 * A `script:` rendered from a step's outputs stays in the folder its fixed part names: an output
 * a confined step wrote (`name=../../user/creds`) must not have neo read a host file, or a file
 * the agent wrote in its workspace, as the next step's script.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runNeo } from '../helpers/cli.js';
import { tempDir, writeTree } from '../helpers/temp.js';
import { git } from './flow-helpers.js';

describe('script: with ${{ }} never leaves its folder', () => {
  it('a `..` in the value it is rendered with fails the step before the file is read', async () => {
    const root = await tempDir('neo-e2e-script-path-');
    const repo = join(root, 'repo');
    await writeTree(root, { 'user/creds.yaml': 'turns:\n  - - say: read from the host\n' });
    await writeTree(repo, {
      'README.md': 'hello\n',
      'scripts/ok.yaml': 'turns:\n  - - say: hi\n',
      'p.flow.yaml': [
        'name: p',
        'sandbox: bwrap',
        'steps:',
        `  - { id: a, run: 'echo "name=../../user/creds" >> "$NEO_OUTPUT"' }`,
        '  - id: b',
        '    needs: [a]',
        '    backend: script',
        '    script: "scripts/${{ steps.a.outputs.name }}.yaml"',
        '    brief: hi',
        '    requireChange: false',
        '',
      ].join('\n'),
    });
    await git(repo, 'init', '-q', '-b', 'main');
    await git(repo, 'add', '-A');
    await git(repo, '-c', 'user.name=t', '-c', 'user.email=t@example.com', 'commit', '-qm', 'init');
    const result = await runNeo(['flow', 'run', 'p.flow.yaml', '--json'], {
      cwd: repo,
      env: { NEO_HOME: join(root, 'home'), HOME: join(root, 'user') },
    });
    expect(result.stdout).not.toContain('read from the host');
    const last = JSON.parse(result.stdout.trim().split('\n').at(-1)!) as { cause: string };
    expect(last.cause, result.stdout).toBe('FLOW_SCRIPT_OUTSIDE');
  });
});
