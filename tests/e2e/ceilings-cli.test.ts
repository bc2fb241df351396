import { readdir, readFile, symlink, mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runNeo } from '../helpers/cli.js';
import { commitAll } from '../helpers/git.js';
import { tempDir, writeTree } from '../helpers/temp.js';
import { onlyRunId, readEvents } from './flow-helpers.js';

async function project(files: Record<string, string>) {
  const root = await tempDir('neo-e2e-ceil-');
  await writeTree(join(root, 'p'), files);
  await mkdir(join(root, 'outside'));
  return { root, dir: join(root, 'p'), home: join(root, 'home'), outside: join(root, 'outside') };
}

async function sessionEvents(home: string): Promise<Array<Record<string, unknown>>> {
  const [id] = await readdir(join(home, 'code-sessions'));
  const text = await readFile(join(home, 'code-sessions', id!, 'events.jsonl'), 'utf8');
  return text
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line).event as Record<string, unknown>);
}

describe('neo flow run holds the ceilings', () => {
  it('an allowCommands rule approves exactly its command: nothing chained, substituted or redirected runs', async () => {
    const root = await tempDir('neo-e2e-ceil-');
    const marker = (n: number) => join(root, `M${n}`);
    const attempts = [
      `node --test; touch ${marker(1)}`,
      `node --test && touch ${marker(2)}`,
      `node --test || touch ${marker(3)}`,
      `node --test $(touch ${marker(4)})`,
      `node --test \`touch ${marker(5)}\``,
      `node --test\ntouch ${marker(6)}`,
      `node --test > ${marker(7)}`,
      `node --test | tee ${marker(8)}`,
    ];
    const script = {
      turns: [[...attempts.map((command) => ({ run: { command } })), { run: { command: 'echo ok' } }, { say: 'done' }]],
    };
    await writeTree(join(root, 'p'), {
      'plan.yaml': [
        'name: chain',
        'workspace: { isolation: inplace }',
        'defaults: { backend: script, maxPosture: acceptEdits, maxRounds: 2 }',
        'steps:',
        '  - id: work',
        '    brief: run the tests',
        '    script: script.json',
        '    allowCommands: ["node --test*", "echo ok"]',
        '    requireChange: false',
        '',
      ].join('\n'),
      'script.json': JSON.stringify(script),
    });
    const home = join(root, 'home');
    const result = await runNeo(['flow', 'run', 'plan.yaml'], { cwd: join(root, 'p'), env: { NEO_HOME: home } });
    expect(result.exitCode, result.stderr).toBe(0);
    expect((await readdir(root)).filter((name) => name.startsWith('M'))).toEqual([]);

    const events = await sessionEvents(home);
    const answers = events.filter((e) => e.type === 'clarification');
    const runId = await onlyRunId(home);
    // Every ask answered, each on record with who answered it: the flow's built-in driver.
    expect(answers.map((a) => [(a.decision as { allow: boolean }).allow, a.by])).toEqual([
      ...attempts.map(() => [false, `flow:${runId}:work#1`]),
      [true, `flow:${runId}:work#1`],
    ]);
    expect((answers[0]!.decision as { reason: string }).reason).toBe(
      `\`node --test; touch ${marker(1)}\` chains, pipes or redirects commands; run each allowed command on its own (allowed: \`node --test*\`, \`echo ok\`)`,
    );
    expect((answers[3]!.decision as { reason: string }).reason).toMatch(/holds a command substitution/);
    expect((answers[5]!.decision as { reason: string }).reason).toMatch(/holds a newline/);
    const outputs = events.flatMap((e) => (e.type === 'tool_result' ? [String(e.output)] : []));
    expect(outputs.at(-1)).toContain('ok');
  });

  it('a literal cwd that leaves the workspace is refused by validate and by run, at its line', async () => {
    const { dir, home } = await project({
      'plan.yaml': 'name: up\nsteps:\n  - id: a\n    run: touch escaped\n    cwd: ../..\n',
    });
    const validate = await runNeo(['flow', 'validate', 'plan.yaml'], { cwd: dir, env: { NEO_HOME: home } });
    expect(validate.exitCode).toBe(2);
    expect(validate.stderr).toContain(
      'plan.yaml:5:10: error[DEF_CWD_OUTSIDE]: step `a` has cwd `../..`, which leaves the workspace',
    );
    const run = await runNeo(['flow', 'run', 'plan.yaml'], { cwd: dir, env: { NEO_HOME: home } });
    expect(run.exitCode).toBe(2);
    expect(run.stderr).toContain('DEF_CWD_OUTSIDE');
  });

  it('a cwd that leads out through a symlink fails its run step and its agent step, and nothing is written there', async () => {
    const { dir, home, outside } = await project({
      'plan.yaml': [
        'name: link',
        'workspace: { isolation: inplace }',
        'defaults: { backend: script }',
        'steps:',
        '  - { id: cmd, run: touch escaped, cwd: out }',
        '  - id: agent',
        '    brief: write',
        '    cwd: out',
        '    script: script.json',
        '',
      ].join('\n'),
      'script.json': JSON.stringify({ turns: [[{ write: { path: 'escaped.txt', content: 'x' } }]] }),
    });
    await symlink(outside, join(dir, 'out'));
    const run = await runNeo(['flow', 'run', 'plan.yaml'], { cwd: dir, env: { NEO_HOME: home } });
    expect(run.exitCode).toBe(1);
    expect(await readdir(outside)).toEqual([]);
    const failed = (await readEvents(home, await onlyRunId(home))).filter((e) => e.type === 'step.completed');
    const errors = failed.map((e) => (e as { error?: { code: string; message: string } }).error);
    expect(errors.map((e) => e?.code)).toEqual(['FLOW_CWD_OUTSIDE', 'FLOW_CWD_OUTSIDE']);
    // The two steps run in parallel: the order of their records is not theirs to promise.
    const cmdError = failed.find((e) => (e as { step?: string }).step === 'cmd') as { error?: { message: string } };
    expect(cmdError.error!.message).toBe(
      `step \`cmd\` has cwd \`out\`, which is not a folder it may work in: out is outside the workspace ${dir} (it leads to ${outside})`,
    );
  });
});

describe('neo persona run holds a start to the default ceiling', () => {
  it('a persona that starts above every ceiling written (bypassPermissions, no maxPosture) starts at acceptEdits, warned, not refused', async () => {
    const root = await tempDir('neo-e2e-ceil-');
    const home = join(root, 'home');
    const repo = join(root, 'repo');
    await writeTree(root, {
      'home/agents/bold.md': '---\ndescription: bold\npermissionMode: bypassPermissions\n---\nDo it.\n',
      'repo/write.yaml': 'turns:\n  - actions:\n      - write: { path: out.txt, content: "changed\\n" }\n',
      'repo/README.md': 'x\n',
    });
    await commitAll(repo);
    const env = { NEO_HOME: home, NEO_SESSION_DAEMON_IDLE_MS: '1500' };
    try {
      const validate = await runNeo(['validate', join(home, 'agents', 'bold.md')], { cwd: repo, env });
      expect(validate.stdout + validate.stderr).toContain(
        'warning[DEF_POSTURE_ORDER]: the posture of permissionMode `full` is above the default ceiling `acceptEdits`',
      );
      const run = await runNeo(
        ['persona', 'run', 'bold', '--brief', 'x', '--backend', 'script', '--script', 'write.yaml'],
        {
          cwd: repo,
          env,
        },
      );
      expect(run.stderr).not.toContain('POSTURE_CEILING_EXCEEDED');
      expect(await readFile(join(repo, 'out.txt'), 'utf8')).toBe('changed\n');
      const created = (await sessionEvents(home)).find((e) => e.type === 'created');
      expect(created).toMatchObject({ posture: 'acceptEdits', maxPosture: 'acceptEdits' });
    } finally {
      await runNeo(['session', 'daemon', '--stop'], { env });
    }
  });
});
