/**
 * `neo flow resume --engine dbos` right after `neo flow cancel`, before the worker driving the run
 * has noticed the cancel. The worker is frozen (SIGSTOP) across the two commands, so its check of
 * the run's ownership (once a second) first runs with the workflow already back on the queue under
 * the same executor: the old drive must end and hand the run to the resumed execution, on a worker
 * whose one slot the old drive holds. Before the fix the old drive ran its step to the end and
 * parked, holding the slot, and the resumed run never moved.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runNeo } from '../helpers/cli.js';
import { tempDir } from '../helpers/temp.js';
import { freshDatabase, runEnded, startWorker, useDbos, waitFor } from './dbos-helpers.js';

const dbos = useDbos();
const { workers } = dbos;

describe('dbos engine: resume at once after a cancel', () => {
  it.each([1, 2])(
    'finishes on a worker of concurrency %i that had not yet seen the cancel, its first step kept',
    { timeout: 120_000 },
    async (concurrency) => {
      const url = await freshDatabase(dbos.db);
      const dir = await tempDir('neo-dbos-resume-');
      await writeFile(
        join(dir, 'plan.yaml'),
        `name: stopped
workspace: { isolation: inplace }
steps:
  - { id: one, run: echo one >> ${dir}/log }
  - id: slow
    needs: [one]
    run: if [ -e ${dir}/in-slow ]; then echo slow-again >> ${dir}/log; else touch ${dir}/in-slow; sleep 60; fi
`,
      );
      const worker = await startWorker(url, await tempDir('neo-dbos-resume-worker-'), 'wa', concurrency);
      workers.push(worker);
      const env = { NEO_HOME: join(dir, '.client-home') };
      const neo = (args: string[]) => runNeo([...args, '--engine', 'dbos', '--database-url', url], { cwd: dir, env });

      const started = await neo(['flow', 'run', 'plan.yaml', '--detach', '--json']);
      expect(started.exitCode).toBe(0);
      const runId = (JSON.parse(started.stdout.split('\n')[0]!) as { runId: string }).runId;
      await waitFor('step slow to start', () =>
        readFile(join(dir, 'in-slow')).then(
          () => true,
          () => undefined,
        ),
      );

      worker.child.kill('SIGSTOP');
      try {
        expect((await neo(['flow', 'cancel', runId])).exitCode).toBe(0);
        const resumed = await neo(['flow', 'resume', runId, '--detach']);
        expect(resumed.stderr).toBe('');
        expect(resumed.exitCode).toBe(0);
      } finally {
        worker.child.kill('SIGCONT');
      }

      expect(await runEnded(url, runId)).toEqual({ status: 'succeeded', executor: 'wa' });
      expect((await readFile(join(dir, 'log'), 'utf8')).trim().split('\n')).toEqual(['one', 'slow-again']);
      // The old drive ended (it did not park holding its slot): the worker still runs as many runs at once.
      await writeFile(join(dir, 'quick.yaml'), 'name: quick\nsteps:\n  - { id: one, run: "true" }\n');
      const quick = await Promise.all(
        Array.from({ length: concurrency }, () => neo(['flow', 'run', 'quick.yaml', '--detach', '--json'])),
      );
      for (const r of quick) {
        expect(r.exitCode).toBe(0);
        const id = (JSON.parse(r.stdout.split('\n')[0]!) as { runId: string }).runId;
        expect(await runEnded(url, id, 20_000)).toEqual({ status: 'succeeded', executor: 'wa' });
      }
    },
  );
});
