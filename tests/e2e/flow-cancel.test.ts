/**
 * `neo flow cancel` on the local engine: the run's driving process is interrupted as a Ctrl-C
 * would (its step's process stopped), the run is recorded `interrupted` and stays resumable;
 * a run that is not running is named as such.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { runNeo } from '../helpers/cli.js';
import { tempDir } from '../helpers/temp.js';
import { spawnNeo, waitForOutput } from './flow-helpers.js';

it('cancels a local run from another process: interrupted, resumable; again: not running', async () => {
  const dir = await tempDir('neo-cancel-');
  const home = join(dir, 'home');
  await writeFile(
    join(dir, 'plan.yaml'),
    `name: long\nworkspace: { isolation: inplace }\nsteps:\n  - id: wait\n    run: touch ${dir}/started; sleep 30\n`,
  );
  const child = spawnNeo(['flow', 'run', 'plan.yaml'], { cwd: dir, home });
  const runId = (await waitForOutput(child, /^run (\S+) · flow long/m))[1]!;
  for (;;) {
    if (
      await readFile(join(dir, 'started')).then(
        () => true,
        () => false,
      )
    )
      break;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  const cancel = await runNeo(['flow', 'cancel', runId, '--json'], { env: { NEO_HOME: home } });
  expect(cancel.exitCode).toBe(0);
  expect(JSON.parse(cancel.stdout)).toEqual({ runId, engine: 'local', interrupted: true });
  const run = await child;
  expect(run.exitCode).toBe(130);
  const record = JSON.parse(await readFile(join(home, 'runs', runId, 'run.json'), 'utf8')) as { status: string };
  expect(record.status).toBe('interrupted');
  const again = await runNeo(['flow', 'cancel', runId], { env: { NEO_HOME: home } });
  expect(again.stdout).toContain(`run ${runId} is not running (interrupted)`);
});
