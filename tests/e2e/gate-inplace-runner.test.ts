/**
 * The gate in `inplace` isolation judges with the checkout's dependency folders, as they were
 * when the gated step began. An earlier agent step of the run (no gate of its own) can rewrite
 * the test runner there (`node_modules/…`, git-ignored: in no diff), so the later step's gate
 * would run a runner that passes everything and green a test it never ran.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runNeo } from '../helpers/cli.js';
import { tempDir, writeTree } from '../helpers/temp.js';
import { commitAll } from '../helpers/git.js';

const WRONG = 'module.exports = (a, b) => a - b;\n';
const TEST = "const assert = require('node:assert');\nassert.strictEqual(require('../src/sum.js')(2, 3), 5);\n";
const RUNNER = "require(require('node:path').resolve(process.argv[2]));";
const summary = (stdout: string) =>
  JSON.parse(stdout.trim().split('\n').at(-1)!) as { status: string; cause: string | null; exitCode: number };
const writes = (files: Record<string, string>) =>
  `turns:\n  - actions:\n${Object.entries(files)
    .map(([path, content]) => `      - write: { path: ${path}, content: ${JSON.stringify(content)} }\n`)
    .join('')}  - actions:\n      - say: I tried again.\n`;

describe('the gate of an inplace run and a test runner an earlier agent step rewrote', () => {
  it('never greens the gate with it', async () => {
    const root = await tempDir('neo-e2e-gate-inplace-');
    const repo = join(root, 'repo');
    await writeTree(repo, {
      'src/sum.js': WRONG,
      'test/sum.test.js': TEST,
      '.gitignore': 'node_modules/\n',
      'tamper.yaml': writes({ 'node_modules/runner/run.js': 'process.exit(0);\n' }),
      'idle.yaml': 'turns:\n  - actions:\n      - say: nothing to change.\n',
      'right.yaml': writes({ 'src/sum.js': 'module.exports = (a, b) => a + b;\n' }),
      'plan.yaml': [
        'name: gate-inplace',
        'sandbox: bwrap',
        'workspace: { isolation: inplace }',
        'defaults: { backend: script, maxPosture: acceptEdits }',
        'steps:',
        `  - id: deps`,
        `    run: mkdir -p node_modules/runner && printf '%s' ${JSON.stringify(RUNNER)} > node_modules/runner/run.js`,
        '  - id: tidy',
        '    needs: [deps]',
        '    brief: tidy up',
        '    script: tamper.yaml',
        // Its change lies in a git-ignored folder: no file of the diff.
        '    requireChange: false',
        '  - id: fix',
        '    needs: [tidy]',
        '    brief: make the tests pass',
        '    script: idle.yaml',
        '    requireChange: false',
        '    verify: node node_modules/runner/run.js test/sum.test.js',
        '',
      ].join('\n'),
    });
    await commitAll(repo);
    const result = await runNeo(['flow', 'run', 'plan.yaml', '--json'], {
      cwd: repo,
      env: { NEO_HOME: join(root, 'home'), HOME: root },
    });
    expect(summary(result.stdout), result.stdout + result.stderr).toMatchObject({
      status: 'failed',
      cause: 'FLOW_GATE_DEPENDENCIES_CHANGED',
    });

    // A run step that installs the runner again after the agent's change is trusted: the gate
    // judges with what it installed, and a real fix passes.
    const plan = await readFile(join(repo, 'plan.yaml'), 'utf8');
    const reinstall = plan
      .replace(
        '    needs: [tidy]\n    brief: make the tests pass\n    script: idle.yaml',
        '    needs: [again]\n    brief: make the tests pass\n    script: right.yaml',
      )
      .replace(
        '  - id: fix\n',
        `  - id: again\n    needs: [tidy]\n    run: printf '%s' ${JSON.stringify(RUNNER)} > node_modules/runner/run.js\n  - id: fix\n`,
      );
    await writeFile(join(repo, 'reinstall.flow.yaml'), reinstall);
    const second = await runNeo(['flow', 'run', 'reinstall.flow.yaml', '--json'], {
      cwd: repo,
      env: { NEO_HOME: join(root, 'home'), HOME: root },
    });
    expect(summary(second.stdout), second.stdout + second.stderr).toMatchObject({ status: 'succeeded', exitCode: 0 });
  });
});
