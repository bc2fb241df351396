import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runNeo } from '../helpers/cli.js';
import { git, repoWithExamples } from './flow-helpers.js';

describe('examples/quickstart through the neo binary', () => {
  it("succeeds twice in a row with no API key, leaving the checkout unchanged; the fix lands in each run's own worktree", async () => {
    const { repo, home } = await repoWithExamples('quickstart');
    const original = await readFile(join(repo, 'quickstart/src/sum.js'), 'utf8');
    const workspaces: string[] = [];
    for (let i = 0; i < 2; i++) {
      const result = await runNeo(['flow', 'run', 'quickstart/plan.yaml'], { cwd: repo, env: { NEO_HOME: home } });
      expect(result.stderr).toBe('');
      expect(result.exitCode).toBe(0);
      // The script backend's costs are its script's: labelled simulated, never as if spent.
      expect(result.stdout).toMatch(
        /✓ quickstart succeeded in .* · \$0\.0035 simulated · 2 turns · 4300 tokens · run /,
      );
      expect(result.stdout).toMatch(/✓ fix {2}success · .* · \$0\.0035 simulated · /);
      expect(result.stdout).toContain('✓ fix  success · gate `node --test` passed (attempt 2/3) ·');
      const workspace = /workspace: (\S+)/.exec(result.stdout)![1]!;
      const runId = /run (\S+) · flow quickstart/.exec(result.stdout)![1]!;
      expect(result.stdout).toContain(`merge it: git -C ${repo} merge neo/${runId}`);
      expect(await readFile(join(workspace, 'src/sum.js'), 'utf8')).toContain('let total = 0;');
      workspaces.push(workspace);
    }
    expect(workspaces[0]).not.toBe(workspaces[1]);
    const list = await runNeo(['flow', 'list'], { cwd: repo, env: { NEO_HOME: home } });
    expect(list.stdout.match(/\$0\.0035 simulated/g)).toHaveLength(2);
    const listed = JSON.parse(
      (await runNeo(['flow', 'list', '--json'], { cwd: repo, env: { NEO_HOME: home } })).stdout,
    );
    expect(listed[0]).toMatchObject({ ledger: { costUsd: 0.0035 }, simulatedCostUsd: 0.0035 });
    const show = await runNeo(['flow', 'show', listed[0].runId], { cwd: repo, env: { NEO_HOME: home } });
    expect(show.stdout).toMatch(/ · \$0\.0035 simulated · 2 turns/);
    expect(await readFile(join(repo, 'quickstart/src/sum.js'), 'utf8')).toBe(original);
    expect(await git(repo, 'status', '--porcelain')).toBe('');
  });

  it('runs with --isolation copy straight from a folder that is not committed anywhere', async () => {
    const { repo, home } = await repoWithExamples('quickstart');
    const result = await runNeo(['flow', 'run', join(repo, 'quickstart/plan.yaml'), '--isolation', 'copy', '--json'], {
      cwd: repo,
      env: { NEO_HOME: home },
    });
    expect(result.exitCode).toBe(0);
    const lines = result.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    const summary = lines.at(-1);
    expect(summary).toMatchObject({
      type: 'summary',
      status: 'succeeded',
      workspace: { isolation: 'copy' },
      steps: [{ id: 'fix', status: 'succeeded', verdict: 'success' }],
    });
    const kinds = lines.filter((l) => l.type === 'event').map((l) => l.event.type);
    expect(kinds).toEqual([
      'run.started',
      'step.started',
      'ledger.charged',
      'ledger.charged',
      'step.completed',
      'run.finished',
    ]);
  });
});
