/**
 * The script backend's file tools run in neo's own process, on a working tree that the run's
 * confined steps write: a named pipe an earlier step planted where the script edits or writes a
 * file made `edit` wait for a writer (and `write` for a reader) for good, and the file's path was
 * checked before it was opened, so a link swapped in between led out of the tree. A file tool now
 * opens what it checked without following a last link, non-blocking, and acts only on a regular
 * file: a pipe is a failed tool call the script goes on from.
 */
import { join } from 'node:path';
import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { runNeo } from '../helpers/cli.js';
import { tempDir, writeTree } from '../helpers/temp.js';
import { commitAll } from '../helpers/git.js';

describe('the script backend on a named pipe a step planted', () => {
  it('fails the edit and the write instead of waiting, and still edits through an in-tree link', async () => {
    const root = await tempDir('neo-e2e-script-fifo-');
    const repo = join(root, 'repo');
    await writeTree(repo, {
      'real.txt': 'one\n',
      'plan.yaml': [
        'name: fifo',
        'defaults: { backend: script, maxPosture: full, posture: full, maxRounds: 2 }',
        'steps:',
        "  - { id: plant, run: 'mkfifo notes.txt out.txt && ln -s real.txt link.txt' }",
        '  - id: work',
        '    needs: [plant]',
        '    brief: Edit the notes.',
        '    script: s.yaml',
        '    requireChange: false',
        '',
      ].join('\n'),
      's.yaml': [
        'turns:',
        '  - - edit: { path: notes.txt, search: "a", replace: "b" }',
        '    - write: { path: out.txt, content: "x\\n" }',
        '    - edit: { path: link.txt, search: "one", replace: "ONE" }',
        '    - say: Done.',
        '',
      ].join('\n'),
    });
    await commitAll(repo);
    const result = await runNeo(['flow', 'run', 'plan.yaml', '--json'], {
      cwd: repo,
      env: { NEO_HOME: join(root, 'home') },
      timeout: 30_000,
    });
    expect(result.exitCode, result.stdout + result.stderr).toBe(0);
    const summary = JSON.parse(result.stdout.trim().split('\n').at(-1)!) as { workspace: { path: string } };
    expect(await readFile(join(summary.workspace.path, 'real.txt'), 'utf8')).toBe('ONE\n');
  });
});
