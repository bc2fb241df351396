/**
 * The owner policy (`NEO_HOME/policy.yaml`) caps everything, and fails closed: an owner policy
 * that does not validate stops every command that would run an agent with exit 2 and the file's
 * located diagnostic, never a silent run without the cap.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runNeo } from '../helpers/cli.js';
import { commitAll } from '../helpers/git.js';
import { tempDir, writeTree } from '../helpers/temp.js';

const cleanups: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()!();
});

async function repoWithPlan(): Promise<{ home: string; repo: string; env: Record<string, string> }> {
  const root = await tempDir('neo-owner-');
  const home = join(root, 'home');
  const repo = join(root, 'repo');
  await writeTree(root, {
    'repo/plan.yaml': [
      'name: edit',
      'defaults: { backend: script }',
      'workspace: { isolation: inplace }',
      'steps:',
      '  - { id: edit, brief: write a file, script: write.yaml, posture: acceptEdits }',
      '',
    ].join('\n'),
    'repo/write.yaml': 'turns:\n  - actions:\n      - write: { path: out.txt, content: "changed\\n" }\n',
    'repo/README.md': 'x\n',
  });
  await commitAll(repo);
  const env = { NEO_HOME: home, NEO_SESSION_DAEMON_IDLE_MS: '1500' };
  cleanups.push(() => runNeo(['session', 'daemon', '--stop'], { env }));
  return { home, repo, env };
}

describe('the owner policy', () => {
  it('an invalid one stops every command that would run an agent (exit 2, located), and nothing changes', async () => {
    const { home, repo, env } = await repoWithPlan();
    // A cap without its required description: the schema refuses it.
    await writeTree(home, { 'policy.yaml': 'maxPosture: plan\n' });
    const policy = join(home, 'policy.yaml');
    const commands = [
      ['flow', 'run', 'plan.yaml'],
      ['flow', 'run', 'plan.yaml', '--dry-run'],
      ['persona', 'run', 'implementer', '--brief', 'x', '--backend', 'script'],
      ['session', 'start', '--backend', 'script', '--script', 'write.yaml', '--brief', 'x'],
      ['script', 'play', 'write.yaml'],
    ];
    for (const args of commands) {
      const result = await runNeo(args, { cwd: repo, env });
      expect([args.join(' '), result.exitCode]).toEqual([args.join(' '), 2]);
      expect(result.stderr).toContain(`the owner policy ${policy} is invalid, and neo runs no agent without it`);
      expect(result.stderr).toContain(`${policy}:1:1: error[DEF_MISSING_FIELD]`);
    }
    await expect(readFile(join(repo, 'out.txt'), 'utf8')).rejects.toThrow();
    // A second run hits the plan cache the first dry-run could have filled: still refused.
    expect((await runNeo(['flow', 'run', 'plan.yaml', '--dry-run'], { cwd: repo, env })).exitCode).toBe(2);
  });

  it('a valid one caps `neo session start`: a wider request is refused, the default comes down to it', async () => {
    const { home, repo, env } = await repoWithPlan();
    await writeTree(home, { 'policy.yaml': 'description: look, never touch\nmaxPosture: plan\n' });
    const start = ['session', 'start', '--backend', 'script', '--script', 'write.yaml', '--brief', 'x'];
    const wide = await runNeo([...start, '--max-posture', 'full'], { cwd: repo, env });
    expect(wide.exitCode).toBe(2);
    expect(wide.stderr).toContain('error[POSTURE_CEILING_EXCEEDED]: maxPosture `full` is above');
    // A replay meets the same rule and the same code.
    const play = await runNeo(['script', 'play', 'write.yaml', '--posture', 'full'], { cwd: repo, env });
    expect(play.exitCode).toBe(2);
    expect(play.stderr).toContain(
      `error[POSTURE_CEILING_EXCEEDED]: --posture \`full\` is above the owner policy's maxPosture (${join(home, 'policy.yaml')}) \`plan\``,
    );
    const capped = await runNeo([...start, '--json'], { cwd: repo, env });
    expect(capped.exitCode, capped.stderr).toBe(0);
    const started = JSON.parse(capped.stdout) as { sessionId: string; posture: string; maxPosture: string };
    expect(started).toMatchObject({ posture: 'plan', maxPosture: 'plan' });
    await runNeo(['session', 'stop', started.sessionId], { cwd: repo, env });
  });
});
