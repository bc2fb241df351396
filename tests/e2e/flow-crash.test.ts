import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runNeo } from '../helpers/cli.js';
import { tempDir, writeTree } from '../helpers/temp.js';
import { onlyRunId, readEvents, spawnNeo, waitForOutput } from './flow-helpers.js';

const STEPS = ['s1', 's2', 's3', 's4', 's5', 's6'];
const PLAN = `name: six
workspace: { isolation: copy }
steps:
  - { id: s1, run: 'sleep 0.1; echo s1 >> log' }
  - { id: s2, run: 'sleep 0.1; echo s2 >> log', needs: [s1] }
  - { id: s3, run: 'sleep 0.15; echo s3 >> log', needs: [s1] }
  - { id: s4, run: 'sleep 0.1; echo s4 >> log', needs: [s2, s3] }
  - { id: s5, run: 'sleep 0.1; echo s5 >> log', needs: [s4] }
  - { id: s6, run: 'sleep 0.2; echo s6 >> log', needs: [s5] }
`;

/** A small deterministic generator, so a failing trial can be replayed by its number. */
function random(seed: number): () => number {
  let state = seed * 2654435761 + 1;
  return () => {
    state = (state * 1103515245 + 12345) % 2147483648;
    return state / 2147483648;
  };
}

describe('crash and resume: SIGKILL `neo flow run` at random points of a 6-step flow', () => {
  for (let trial = 1; trial <= 20; trial++) {
    it(
      `trial ${trial}: resume completes, no finished step runs twice, events stay gapless`,
      { timeout: 120_000 },
      async () => {
        const next = random(trial);
        const root = await tempDir('neo-crash-');
        const dir = join(root, 'p');
        const home = join(root, 'home');
        await writeTree(dir, { 'plan.yaml': PLAN });
        const child = spawnNeo(['flow', 'run', 'plan.yaml'], { cwd: dir, home });
        // Kill after a random number of step lines (never after s6 started) plus a random delay.
        const afterLines = Math.floor(next() * 11);
        await waitForOutput(child, /^run \S+ · flow six/m);
        if (afterLines > 0)
          await waitForOutput(child, new RegExp(`(?:^step [^\\n]*\\n[\\s\\S]*?){${afterLines}}`, 'm'));
        await new Promise((resolve) => setTimeout(resolve, Math.floor(next() * 120)));
        child.kill('SIGKILL');
        await child;

        const runId = await onlyRunId(home);
        const before = await readEvents(home, runId);
        expect(before.some((e) => e.type === 'run.finished')).toBe(false);
        const finishedBefore = new Set(
          before.filter((e) => e.type === 'step.completed' && e.status === 'succeeded').map((e) => String(e.step)),
        );

        const resumed = await runNeo(['flow', 'resume', runId], {
          cwd: dir,
          env: { NEO_HOME: home },
          timeout: 100_000,
        });
        expect(resumed.stderr).toBe('');
        expect(resumed.exitCode).toBe(0);

        const events = await readEvents(home, runId);
        expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i + 1));
        const raw = (await readFile(join(home, 'runs', runId, 'events.jsonl'), 'utf8')).trim().split('\n');
        expect(raw).toHaveLength(events.length);
        // The resume's own events follow the killed process's: the interruption it found, then
        // run.resumed (or, for a process killed before its first event, run.started).
        const resumedWith = before.length === 0 ? ['run.started'] : ['run.interrupted', 'run.resumed'];
        expect(events.slice(before.length, before.length + resumedWith.length).map((e) => e.type)).toEqual(resumedWith);
        const restarted = events
          .slice(before.length)
          .filter((e) => e.type === 'step.started')
          .map((e) => String(e.step));
        for (const step of finishedBefore) expect(restarted).not.toContain(step);
        for (const step of STEPS) {
          expect(
            events.filter((e) => e.type === 'step.completed' && e.step === step && e.status === 'succeeded'),
          ).toHaveLength(1);
        }
        expect(events.at(-1)).toMatchObject({ type: 'run.finished', status: 'succeeded' });
        const record = JSON.parse(await readFile(join(home, 'runs', runId, 'run.json'), 'utf8'));
        const log = (await readFile(join(record.workspace.path, 'log'), 'utf8')).trim().split('\n');
        for (const step of finishedBefore) expect(log.filter((line) => line === step)).toHaveLength(1);
        for (const step of STEPS) expect(log).toContain(step);
      },
    );
  }
});
