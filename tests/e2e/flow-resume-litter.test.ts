/**
 * A run killed in the middle of an atomic write leaves `*.tmp` files behind; the resume that
 * carries it to success sweeps them from its sub-flows' run folders and its sessions' folders
 * and its approvals folder too, not only from its own.
 */
import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runNeo } from '../helpers/cli.js';
import { allowUnfinishedRun } from '../helpers/leaks.js';
import { tempDir, writeTree } from '../helpers/temp.js';
import { git, onlyRunId, spawnNeo, waitForOutput } from './flow-helpers.js';

describe('a resumed run sweeps what a kill left', () => {
  it("temp files in its sub-flow's run folder and its session's folder, and its killed step's output folder, are gone after a successful resume", async () => {
    const root = await tempDir('neo-e2e-litter-');
    const repo = join(root, 'repo');
    const home = join(root, 'home');
    await writeTree(repo, {
      'README.md': 'hello\n',
      'note.yaml': 'turns:\n  - - write: { path: note.txt, content: "a note\\n" }\n',
      'plan.yaml':
        'name: parent\ndefaults: { backend: script, maxPosture: acceptEdits }\nsteps:\n  - id: work\n    brief: write a note\n    script: note.yaml\n  - id: child\n    needs: [work]\n    flow: child.flow.yaml\n',
      // The first time it waits to be killed; resumed, it finds its marker and finishes.
      'child.flow.yaml':
        'name: child\nsteps:\n  - { id: wait, run: "if [ -f marker ]; then echo resumed; else touch marker; echo waiting; sleep 60; fi" }\n',
    });
    await git(repo, 'init', '-q', '-b', 'main');
    await git(repo, 'add', '-A');
    await git(repo, '-c', 'user.name=t', '-c', 'user.email=t@example.com', 'commit', '-qm', 'init');
    const child = spawnNeo(['flow', 'run', 'plan.yaml'], { cwd: repo, home });
    // Killed once the command has set its marker (so the resumed one finishes at once).
    await waitForOutput(child, /^ {2}step wait started$/m);
    const runId = await onlyRunId(home);
    allowUnfinishedRun(runId);
    allowUnfinishedRun(`${runId}.child.1-1`);
    while (!existsSync(join(home, 'worktrees', runId, 'marker'))) await new Promise((r) => setTimeout(r, 50));
    child.kill('SIGKILL');
    await child;
    // What a writer killed between open and rename leaves: `<file>.<pid>.<8 hex>.tmp`.
    const litter = `meta.json.${child.pid}.0badf00d.tmp`;
    const subflow = readdirSync(join(home, 'runs')).find((name) => name.startsWith(`${runId}.`))!;
    const session = readdirSync(join(home, 'code-sessions')).find((name) => name.startsWith('cs_'))!;
    // An approval's answer killed before its link() leaves one in the run's approvals folder.
    mkdirSync(join(home, 'approvals', runId), { recursive: true });
    const planted = [
      join(home, 'runs', subflow, litter),
      join(home, 'code-sessions', session, litter),
      join(home, 'approvals', runId, `review.json.${child.pid}.0badf00d.tmp`),
    ];
    for (const file of planted) writeFileSync(file, '{"half":');
    // The killed command's $NEO_OUTPUT folder, named after its (sub-flow's) run.
    const outputs = () => readdirSync(join(home, 'io')).filter((name) => name.startsWith(`${runId}.`));
    expect(outputs()).toHaveLength(1);
    const resumed = await runNeo(['flow', 'resume', runId], { cwd: repo, env: { NEO_HOME: home } });
    expect(resumed.exitCode, resumed.stdout + resumed.stderr).toBe(0);
    expect(planted.filter((file) => existsSync(file))).toEqual([]);
    expect(outputs()).toEqual([]);
  });
});
