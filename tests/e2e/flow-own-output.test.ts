/**
 * neo's own output files are never blamed on the agent: `neo flow run --json > run.ndjson`
 * inside the checkout grows a file there while the agent works, and that is not an escape.
 */
import { execa } from 'execa';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { NEO_BIN } from '../helpers/cli.js';
import { watchFolder } from '../helpers/leaks.js';
import { tempDir, writeTree } from '../helpers/temp.js';
import { git } from './flow-helpers.js';

describe("neo's own output in the checkout", () => {
  it('`neo flow run --json > run.ndjson` (and 2> run.log) inside the checkout succeeds', async () => {
    const root = await tempDir('neo-e2e-own-output-');
    const repo = join(root, 'repo');
    const home = join(root, 'home');
    await writeTree(repo, {
      'README.md': 'hello\n',
      'writes.yaml':
        'turns:\n  - - say: Writing.\n    - write: { path: note.txt, content: "a note\\n" }\n  - - say: Done.\n',
      'plan.yaml':
        'name: own\ndefaults: { backend: script, maxPosture: acceptEdits }\nsandbox: bwrap\nsteps:\n  - id: work\n    brief: write a note\n    script: writes.yaml\n    verify: "test -f note.txt"\n',
    });
    await git(repo, 'init', '-q', '-b', 'main');
    await git(repo, 'add', '-A');
    await git(repo, '-c', 'user.name=t', '-c', 'user.email=t@example.com', 'commit', '-qm', 'init');
    watchFolder(home);
    const run = await execa(
      'sh',
      ['-c', `"${process.execPath}" "${NEO_BIN}" flow run plan.yaml --json > run.ndjson 2> run.log`],
      {
        cwd: repo,
        env: { NO_COLOR: '1', NEO_HOME: home },
        reject: false,
      },
    );
    const lines = readFileSync(join(repo, 'run.ndjson'), 'utf8').trim().split('\n');
    const summary = JSON.parse(lines.at(-1)!) as { status: string; cause: string | null };
    expect(summary, readFileSync(join(repo, 'run.log'), 'utf8')).toMatchObject({ status: 'succeeded', cause: null });
    expect(run.exitCode).toBe(0);
  });
});
