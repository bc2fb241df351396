/**
 * The script backend's file tools act from neo's process, where no mount holds them: they obeyed
 * the sandbox's read-only binds but not what it hides. With NEO_HOME kept inside an `inplace`
 * checkout (hidden in bwrap: an empty tmpfs there), a scripted write landed in the real NEO_HOME —
 * the run store, its key — and a rename of the folder holding it carried it off to a path no
 * mount names, where it was written and then moved back.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runNeo } from '../helpers/cli.js';
import { commitAll } from '../helpers/git.js';
import { tempDir, writeTree } from '../helpers/temp.js';

describe("an inplace run's in-process file tools and a hidden tree inside the checkout", () => {
  it('write nothing into it, directly or by renaming the folder that holds it', async () => {
    const root = await tempDir('neo-e2e-inplace-hidden-');
    const repo = join(root, 'repo');
    const home = join(repo, 'sub', 'neo-home');
    await writeTree(repo, {
      'sub/keep.txt': 'kept\n',
      'plant.yaml': [
        'turns:',
        '  - - write: { path: sub/neo-home/direct.txt, content: "planted\\n" }',
        '    - rename: { from: sub, to: moved }',
        '    - write: { path: moved/neo-home/renamed.txt, content: "planted\\n" }',
        '    - rename: { from: moved, to: sub }',
        '    - write: { path: note.txt, content: "done\\n" }',
        '    - say: planted',
        '',
      ].join('\n'),
      'plant.flow.yaml': [
        'name: plant',
        'sandbox: bwrap',
        'workspace: { isolation: inplace }',
        'defaults: { backend: script, maxPosture: acceptEdits }',
        'steps:',
        '  - { id: a, brief: plant, script: plant.yaml }',
        '',
      ].join('\n'),
    });
    await commitAll(repo);
    const env = { NEO_HOME: home, HOME: root };
    const run = await runNeo(['flow', 'run', 'plant.flow.yaml'], { cwd: repo, env });
    expect(run.exitCode, run.stdout + run.stderr).toBe(0);
    expect(existsSync(join(home, 'direct.txt'))).toBe(false);
    expect(existsSync(join(home, 'renamed.txt'))).toBe(false);
    expect(existsSync(join(repo, 'sub', 'keep.txt'))).toBe(true);
    // The folder holding NEO_HOME stayed where it was (the agent's write then made a new `moved/`).
    expect(existsSync(join(home, 'runs'))).toBe(true);
    expect(existsSync(join(repo, 'moved', 'neo-home', 'runs'))).toBe(false);
  });

  it("nor after the agent's own confined command moved the folder above it (the mount moves along)", async () => {
    const root = await tempDir('neo-e2e-inplace-hidden-');
    const repo = join(root, 'repo');
    const home = join(repo, 'sub', 'neo-home');
    await writeTree(repo, {
      'sub/keep.txt': 'kept\n',
      'plant.yaml': [
        'turns:',
        '  - - run: { command: [mv, sub, moved] }',
        '    - write: { path: moved/neo-home/renamed.txt, content: "planted\\n" }',
        '    - run: { command: [mv, moved, sub] }',
        '    - write: { path: note.txt, content: "done\\n" }',
        '    - say: planted',
        '',
      ].join('\n'),
      'plant.flow.yaml': [
        'name: plant',
        'sandbox: bwrap',
        'workspace: { isolation: inplace }',
        'defaults: { backend: script, maxPosture: full }',
        'steps:',
        '  - { id: a, brief: plant, script: plant.yaml }',
        '',
      ].join('\n'),
    });
    await commitAll(repo);
    const run = await runNeo(['flow', 'run', 'plant.flow.yaml'], { cwd: repo, env: { NEO_HOME: home, HOME: root } });
    expect(existsSync(join(home, 'runs')), run.stdout + run.stderr).toBe(true);
    expect(existsSync(join(home, 'renamed.txt'))).toBe(false);
  });
});
