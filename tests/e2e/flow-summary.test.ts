import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runNeo } from '../helpers/cli.js';
import { tempDir, writeTree } from '../helpers/temp.js';
import { git } from './flow-helpers.js';

/** A committed git repo holding `flows`, and its own NEO_HOME. */
async function repoWith(flows: Record<string, string>) {
  const root = await tempDir('neo-e2e-summary-');
  const repo = join(root, 'repo');
  await writeTree(repo, { 'README.md': 'hello\n', ...flows });
  await git(repo, 'init', '-q', '-b', 'main');
  await git(repo, 'add', '-A');
  await git(repo, '-c', 'user.name=t', '-c', 'user.email=t@example.com', 'commit', '-qm', 'init');
  return { repo, home: join(root, 'home') };
}

const flow = (name: string, command: string) =>
  `name: ${name}\nsteps:\n  - id: s\n    run: ${JSON.stringify(command)}\n`;

/** The summary lines about the worktree's state (after `branch:`). */
function stateLines(stdout: string): string[] {
  const lines = stdout.split('\n').map((line) => line.trim());
  return lines.filter((line) =>
    /^(uncommitted work is left in|nothing changed; remove it with|merge it:|already merged|the branch keeps)/.test(
      line,
    ),
  );
}

describe('the run summary says exactly one true thing about the worktree', () => {
  it('changed + failed, unchanged + failed, changed + succeeded, unchanged + succeeded', async () => {
    const { repo, home } = await repoWith({
      'new-file-fails.flow.yaml': flow('new-file-fails', 'echo new > created.txt; exit 1'),
      'edit-fails.flow.yaml': flow('edit-fails', 'echo more >> README.md; exit 1'),
      'nothing-fails.flow.yaml': flow('nothing-fails', 'exit 1'),
      'edit-succeeds.flow.yaml': flow('edit-succeeds', 'echo new > created.txt'),
      'nothing-succeeds.flow.yaml': flow('nothing-succeeds', 'true'),
    });
    const run = (name: string) => runNeo(['flow', 'run', `${name}.flow.yaml`], { cwd: repo, env: { NEO_HOME: home } });

    for (const name of ['new-file-fails', 'edit-fails']) {
      const result = await run(name);
      expect(result.exitCode, name).not.toBe(0);
      expect(result.stdout, name).toMatch(/branch: neo\/\S+ \(0 commits on [0-9a-f]{10}, 1 file changed\)/);
      expect(stateLines(result.stdout), name).toEqual([
        expect.stringMatching(/^uncommitted work is left in \S+\/worktrees\/\S+$/),
      ]);
      expect(result.stdout).toMatch(/remove it \(its uncommitted work too\): neo flow clean \S+ --force/);
    }

    const nothingFailed = await run('nothing-fails');
    expect(nothingFailed.stdout).toMatch(/\(0 commits on [0-9a-f]{10}, 0 files changed\)/);
    expect(stateLines(nothingFailed.stdout)).toEqual([
      expect.stringMatching(/^nothing changed; remove it with: neo flow clean \S+$/),
    ]);

    const edited = await run('edit-succeeds');
    expect(edited.exitCode).toBe(0);
    expect(edited.stdout).toMatch(/\(1 commit on [0-9a-f]{10}, 1 file changed\)/);
    expect(stateLines(edited.stdout)).toEqual([expect.stringMatching(/^merge it: git -C \S+ merge neo\/\S+$/)]);
    expect(edited.stdout).toMatch(/remove it \(its commits too\): neo flow clean \S+ --force/);

    const nothing = await run('nothing-succeeds');
    expect(nothing.exitCode).toBe(0);
    expect(stateLines(nothing.stdout)).toEqual([expect.stringMatching(/^nothing changed; remove it with: /)]);
  });
});
