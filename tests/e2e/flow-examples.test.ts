import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runNeo } from '../helpers/cli.js';
import { git, repoWithExamples, spawnNeo, waitForOutput } from './flow-helpers.js';

describe('examples/fix-and-review and examples/fan-out through the neo binary', () => {
  it(
    'fix-and-review with --yes: fix behind the gate, review in plan posture, merged into the checkout',
    { timeout: 240_000 },
    async () => {
      const { repo, home } = await repoWithExamples('fix-and-review');
      const result = await runNeo(['flow', 'run', 'fix-and-review/plan.yaml', '--yes'], {
        cwd: repo,
        env: { NEO_HOME: home },
        timeout: 200_000,
      });
      expect(result.exitCode).toBe(0);
      expect(result.stdout).toContain(
        '✓ fix  success · gate `node --test` passed (attempt 1/3) · baseline failed · 1 file changed, +1 -1',
      );
      expect(result.stdout).toContain('✓ review  success · no files changed');
      expect(result.stdout).toContain('✓ ship  merge · pre-approved with --yes');
      expect(result.stdout).toContain(`already merged into ${repo}`);
      expect(await readFile(join(repo, 'fix-and-review/src/slug.js'), 'utf8')).toContain('title.trim().toLowerCase()');
      expect(await git(repo, 'log', '-1', '--format=%s')).toMatch(/^Fix slug\(\) \(neo run /);
    },
  );

  it(
    'fix-and-review without a terminal waits for `neo flow approve` from another process',
    { timeout: 240_000 },
    async () => {
      const { repo, home } = await repoWithExamples('fix-and-review');
      const child = spawnNeo(['flow', 'run', 'fix-and-review/plan.yaml'], { cwd: repo, home });
      const [, runId] = await waitForOutput(
        child,
        /step ship waiting for approval: neo flow approve (\S+) ship --decision merge\|keep\|reject/,
      );
      const show = await runNeo(['flow', 'show', runId!], { cwd: repo, env: { NEO_HOME: home } });
      expect(show.stdout).toContain(
        `⏸ ship: Merge the reviewed fix (\${{ steps.fix.outputs.diff.summary }}) into your checkout? — neo flow approve ${runId} ship --decision merge|keep|reject`,
      );
      const bad = await runNeo(['flow', 'approve', runId!, 'ship', '--decision', 'ship-it'], {
        cwd: repo,
        env: { NEO_HOME: home },
      });
      expect(bad.exitCode).toBe(2);
      expect(bad.stderr).toContain('error[FLOW_UNKNOWN_DECISION]: `ship-it` is not a decision of `ship`');
      const approve = await runNeo(['flow', 'approve', runId!, 'ship', '--decision', 'keep', '--note', 'later'], {
        cwd: repo,
        env: { NEO_HOME: home },
      });
      expect(approve.exitCode).toBe(0);
      expect(approve.stdout).toContain(`ship of run ${runId}: keep (later)`);
      const result = await child;
      expect(result.exitCode).toBe(0);
      expect(result.stdout).toMatch(/✓ ship  keep · by cli \(.*\) · "later"/);
      expect(result.stdout).toContain('↷ merge  skipped (its if was false)');
      expect(await readFile(join(repo, 'fix-and-review/src/slug.js'), 'utf8')).not.toContain('toLowerCase');
      expect(await git(repo, 'status', '--porcelain')).toBe('');
    },
  );

  it('fan-out documents every module, two agents at a time, and the check passes', { timeout: 240_000 }, async () => {
    const { repo, home } = await repoWithExamples('fan-out');
    const result = await runNeo(['flow', 'run', 'fan-out/plan.yaml'], {
      cwd: repo,
      env: { NEO_HOME: home },
      timeout: 200_000,
    });
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toContain('step document fans out over 4 items');
    expect(result.stdout).toContain('✓ document  success · 4 items, 0 failed');
    const branch = /branch: (neo\/\S+)/.exec(result.stdout)![1]!;
    expect(await git(repo, 'show', `${branch}:fan-out/src/dates.js`)).toBe(
      '/** Date formatting helpers. */\nexport const isoDay = (date) => date.toISOString().slice(0, 10);',
    );
  });
});
