/**
 * A driver persona's `rules.verify` judges code its agent wrote, so it runs that code. In a
 * flow it is the step's gate (confined like every gate, in the step's gate sandbox); a flow
 * step naming such a persona and no `verify:` of its own had run the persona's check unconfined,
 * in the workspace, with neo's whole environment: a `sandbox: bwrap` step's agent wrote the
 * check's script and reached the user's files and secrets through it.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runNeo } from '../helpers/cli.js';
import { tempDir, writeTree } from '../helpers/temp.js';
import { commitAll } from '../helpers/git.js';

/** A driver persona whose check runs a script of the workspace (one the agent writes). */
const JUDGE = [
  '---',
  'description: judges with a check',
  'driver: true',
  'backend: script',
  'maxPosture: acceptEdits',
  'rules:',
  '  clarify:',
  '    - { decision: allow, kind: edit, path: "**" }',
  '  otherwise: deny',
  '  verify: sh check.sh',
  '---',
  'Judge.',
  '',
].join('\n');

describe("a flow step's driver persona and its rules.verify", () => {
  it("runs the persona's check in the step's sandbox, with the confined environment", async () => {
    const root = await tempDir('neo-e2e-persona-verify-');
    const repo = join(root, 'repo');
    const home = join(root, 'home');
    const marker = join(root, 'ran-unconfined');
    const check = `echo "secret=$RED5_SECRET" > ${marker}\nexit 0\n`;
    await writeTree(repo, {
      'fix.flow.yaml': [
        'name: fix',
        'sandbox: bwrap',
        'defaults: { backend: script }',
        'steps:',
        '  - { id: fix, persona: judge, brief: fix it, script: turn.yaml }',
        '',
      ].join('\n'),
      'turn.yaml': `turns:\n  - - write: { path: check.sh, content: ${JSON.stringify(check)} }\n`,
    });
    await writeTree(home, { 'agents/judge.md': JUDGE });
    await commitAll(repo);
    const env = { NEO_HOME: home, HOME: root, RED5_SECRET: 'hunter2' };
    const run = await runNeo(['flow', 'run', 'fix.flow.yaml'], { cwd: repo, env });
    expect(run.exitCode, run.stdout + run.stderr).toBe(0);
    // Confined, the script's writes outside the workspace land nowhere and the secret is not there.
    expect(existsSync(marker)).toBe(false);
    const dry = await runNeo(['flow', 'run', 'fix.flow.yaml', '--dry-run'], { cwd: repo, env });
    expect(dry.stdout).toContain('sh check.sh');
  });

  it("neo persona run: the check gets the confined environment, not neo's", async () => {
    const root = await tempDir('neo-e2e-persona-verify-');
    const repo = join(root, 'repo');
    const home = join(root, 'home');
    const seen = join(root, 'seen');
    const check = `echo "secret=$RED5_SECRET path=\${PATH:+set}" > ${seen}\nexit 0\n`;
    await writeTree(repo, {
      'turn.yaml': `turns:\n  - - write: { path: check.sh, content: ${JSON.stringify(check)} }\n`,
    });
    await writeTree(home, { 'agents/judge.md': JUDGE });
    await commitAll(repo);
    const env = { NEO_HOME: home, HOME: root, RED5_SECRET: 'hunter2' };
    const run = await runNeo(['persona', 'run', 'judge', '--brief', 'fix it', '--script', 'turn.yaml'], {
      cwd: repo,
      env,
    });
    expect(run.exitCode, run.stdout + run.stderr).toBe(0);
    expect(readFileSync(seen, 'utf8')).toBe('secret= path=set\n');
  });
});
