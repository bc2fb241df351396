/**
 * An answer belongs to one asking of its approval. A retried approval (`retry.on: any`) asks
 * again with the same key; a run killed in the retry's backoff, while the first answer's file is
 * still there, must not hand that answer to the second asking when it is resumed: the resumed
 * attempt waits for a new answer.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runNeo } from '../helpers/cli.js';
import { allowUnfinishedRun } from '../helpers/leaks.js';
import { tempDir, writeTree } from '../helpers/temp.js';
import { onlyRunId, readEvents, spawnNeo, waitForOutput } from './flow-helpers.js';

const PLAN = `name: retried-review
steps:
  - id: review
    retry: { attempts: 2, backoff: 2s, on: any }
    approval:
      prompt: Ship it?
      decisions: [ { id: approve }, { id: reject, fail: true } ]
`;

async function until<T>(what: string, probe: () => Promise<T | undefined>): Promise<T> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('a retried approval across a kill', () => {
  it("a run killed in the retry's backoff asks again when resumed instead of taking the first attempt's answer", async () => {
    const root = await tempDir('neo-e2e-approval-retry-');
    const dir = join(root, 'p');
    const home = join(root, 'home');
    await writeTree(dir, { 'plan.yaml': PLAN });
    const run = spawnNeo(['flow', 'run', 'plan.yaml'], { cwd: dir, home });
    await waitForOutput(run, /waiting for approval/);
    const runId = await onlyRunId(home);
    allowUnfinishedRun(runId);
    const env = { NEO_HOME: home };
    const rejected = await runNeo(['flow', 'approve', runId, 'review', '--decision', 'reject'], { cwd: dir, env });
    expect(rejected.exitCode, rejected.stderr).toBe(0);
    // Killed in the backoff: the first attempt's failure is on record, the second has not started.
    await until('the retry', async () =>
      (await readEvents(home, runId)).some((e) => e.type === 'step.retrying') ? true : undefined,
    );
    run.kill('SIGKILL');
    await run;

    const resumed = spawnNeo(['flow', 'resume', runId], { cwd: dir, home });
    try {
      await waitForOutput(resumed, /waiting for approval/);
      // The second asking is open: nothing completed the step, and a new answer is taken.
      const events = await readEvents(home, runId);
      expect(events.filter((e) => e.type === 'step.completed')).toEqual([]);
      const approved = await runNeo(['flow', 'approve', runId, 'review', '--decision', 'approve'], { cwd: dir, env });
      expect(approved.exitCode, approved.stdout + approved.stderr).toBe(0);
      const done = await resumed;
      expect(done.exitCode, String(done.stdout) + String(done.stderr)).toBe(0);
    } finally {
      resumed.kill('SIGKILL');
    }
    const completed = (await readEvents(home, runId)).filter((e) => e.type === 'step.completed');
    expect(completed).toMatchObject([{ step: 'review', status: 'succeeded', verdict: 'approve' }]);
  });

  it('without a kill, the retry asks again and follows the second answer', async () => {
    const root = await tempDir('neo-e2e-approval-retry-');
    const dir = join(root, 'p');
    const home = join(root, 'home');
    await writeTree(dir, { 'plan.yaml': PLAN });
    const run = spawnNeo(['flow', 'run', 'plan.yaml'], { cwd: dir, home });
    try {
      await waitForOutput(run, /waiting for approval/);
      const runId = await onlyRunId(home);
      const env = { NEO_HOME: home };
      const rejected = await runNeo(['flow', 'approve', runId, 'review', '--decision', 'reject'], { cwd: dir, env });
      expect(rejected.exitCode, rejected.stderr).toBe(0);
      // The second asking: its started event is the second one.
      await until('the second attempt', async () =>
        (await readEvents(home, runId)).filter((e) => e.type === 'step.started').length === 2 ? true : undefined,
      );
      const approved = await until('the second answer', async () => {
        const tried = await runNeo(['flow', 'approve', runId, 'review', '--decision', 'approve'], { cwd: dir, env });
        // Refused while the first answer is still there (the attempt reopens it as it starts).
        return tried.exitCode === 0 ? tried : undefined;
      });
      expect(approved.exitCode).toBe(0);
      const done = await run;
      expect(done.exitCode, String(done.stdout) + String(done.stderr)).toBe(0);
      const events = await readEvents(home, runId);
      expect(events.filter((e) => e.type === 'step.retrying')).toHaveLength(1);
      expect(events.filter((e) => e.type === 'step.completed')).toMatchObject([
        { status: 'succeeded', verdict: 'approve' },
      ]);
    } finally {
      run.kill('SIGKILL');
    }
  });
});
