/**
 * Ids on the command line are ids, never paths: a run, session or approval id that does not
 * match its kind's exact pattern is a usage error before it reaches the file system, in every
 * command that takes one.
 */
import { cp, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { runNeo } from '../helpers/cli.js';
import { tempDir, writeTree } from '../helpers/temp.js';

describe('ids on the command line', () => {
  it('a crafted run folder outside the store is neither resumed nor shown', async () => {
    const root = await tempDir('neo-ids-');
    const home = join(root, 'home');
    const repo = join(root, 'repo');
    await writeTree(repo, {
      'plan.yaml': 'name: p\nworkspace: { isolation: inplace }\nsteps:\n  - id: a\n    run: exit 1\n',
    });
    await execa('git', ['init', '-q'], { cwd: repo });
    const env = { NEO_HOME: home };
    expect((await runNeo(['flow', 'run', 'plan.yaml'], { cwd: repo, env })).exitCode).toBe(1);
    // An attacker's run folder beside the store, whose step runs their command.
    const [runId] = (await execa('ls', [join(home, 'runs')])).stdout.split('\n');
    const evil = join(root, 'evil-run');
    await cp(join(home, 'runs', runId!), evil, { recursive: true });
    await rm(join(home, 'runs', runId!), { recursive: true });
    const plan = join(evil, 'plan.json');
    await writeFile(plan, (await readFile(plan, 'utf8')).replace('"exit 1"', '"touch pwned"'));

    for (const args of [
      ['flow', 'resume', '../../evil-run'],
      ['flow', 'show', '../../evil-run'],
      ['flow', 'show', '../../evil-run', '--json'],
      ['flow', 'approve', '../../evil-run', 'a', '--decision', 'yes'],
    ]) {
      const result = await runNeo(args, { cwd: repo, env });
      expect([args.join(' '), result.exitCode]).toEqual([args.join(' '), 2]);
      expect(result.stderr).toContain('error[FLOW_BAD_RUN_ID]: "../../evil-run" is not a run id');
      expect(result.stdout).toBe('');
    }
    await expect(readFile(join(repo, 'pwned'))).rejects.toThrow();
  });

  it('an approval step, a session id or a session prefix that could be a path is refused', async () => {
    const root = await tempDir('neo-ids-');
    const env = { NEO_HOME: join(root, 'home') };
    const cases: Array<[string[], string]> = [
      [['flow', 'approve', '20260130-142501-3fa9c2', '../../x', '--decision', 'yes'], 'FLOW_BAD_APPROVAL_KEY'],
      [['sessions', 'show', '../code-sessions'], 'SESSION_BAD_ID'],
      [['sessions', 'tail', 'cs_../../x'], 'SESSION_BAD_ID'],
      [['session', 'read', '..'], 'SESSION_BAD_ID'],
      [['session', 'stop', 'cs_a/b'], 'SESSION_BAD_ID'],
      [['script', 'from-session', '..'], 'SESSION_BAD_ID'],
    ];
    for (const [args, code] of cases) {
      const result = await runNeo(args, { cwd: root, env });
      expect([args.join(' '), result.exitCode, result.stderr.split('\n')[0]]).toEqual([
        args.join(' '),
        2,
        expect.stringContaining(`error[${code}]`),
      ]);
    }
  });
});
