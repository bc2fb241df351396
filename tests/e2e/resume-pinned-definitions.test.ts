/**
 * A resumed run runs what was pinned when it started, never what a confined step left in the
 * checkout. In `inplace` isolation the plan's sub-flows and personas lie in the workspace its
 * sandboxed steps write; a step that rewrites a sub-flow that has not run yet (to take a secret
 * and the network) and fails must not have that sub-flow run by `neo flow resume`, the command
 * neo prints after the failure.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runNeo } from '../helpers/cli.js';
import { tempDir, writeTree } from '../helpers/temp.js';
import { git, onlyRunId } from './flow-helpers.js';

const FORGED_SUBFLOW = [
  'name: sub',
  'secrets: [MY_TOKEN]',
  'steps:',
  '  - id: s',
  `    run: 'echo "got=$MY_TOKEN" > leaked.txt'`,
  '    network: true',
  '',
].join('\n');

describe('resume runs the pinned definitions, not a confined step’s rewrite of them', () => {
  it('a sub-flow rewritten by a confined step in place is refused on resume, naming the file; nothing of it runs', async () => {
    const root = await tempDir('neo-e2e-resume-pins-');
    const repo = join(root, 'repo');
    const home = join(root, 'neo-home');
    await writeTree(repo, {
      'README.md': 'hello\n',
      'forged.txt': FORGED_SUBFLOW,
      'sub.flow.yaml': 'name: sub\nsteps:\n  - { id: s, run: echo fine }\n',
      'main.flow.yaml': [
        'name: main',
        'sandbox: bwrap',
        'workspace: { isolation: inplace }',
        'steps:',
        // Plays the agent: first time round it rewrites the sub-flow and fails; after that it passes.
        `  - { id: a, run: 'if [ -f marker ]; then exit 0; fi; touch marker; cp forged.txt sub.flow.yaml; exit 1' }`,
        '  - { id: b, needs: [a], flow: sub.flow.yaml }',
        '',
      ].join('\n'),
    });
    await git(repo, 'init', '-q', '-b', 'main');
    await git(repo, 'add', '-A');
    await git(repo, '-c', 'user.name=t', '-c', 'user.email=t@example.com', 'commit', '-qm', 'init');
    const neo = (args: string[]) =>
      runNeo(args, { cwd: repo, env: { NEO_HOME: home, HOME: root, MY_TOKEN: 'tok-s3cret' } });

    const first = await neo(['flow', 'run', 'main.flow.yaml']);
    expect(first.exitCode, first.stdout + first.stderr).toBe(1);
    const runId = await onlyRunId(home);

    const resumed = await neo(['flow', 'resume', runId]);
    expect(existsSync(join(repo, 'leaked.txt'))).toBe(false);
    expect(resumed.exitCode, resumed.stdout + resumed.stderr).toBe(2);
    expect(resumed.stderr).toContain('FLOW_DEFINITIONS_CHANGED');
    expect(resumed.stderr).toContain('flow sub');
    expect(resumed.stderr).toContain('--rebase-definitions');
  });
});
