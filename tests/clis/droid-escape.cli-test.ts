import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { runNeo } from '../helpers/cli.js';
import { DROID_MODEL, droidEnv } from './harness/acp-configs.js';
import { describeCli, ROOT } from './harness/clis.js';
import { serveModel } from './harness/model-serve.js';
import { processesIn } from './harness/processes.js';
import { sandbox } from './harness/sandbox.js';

const SCRIPT = join(ROOT, 'tests', 'fixtures', 'model-scripts', 'droid-escape.yaml');

describeCli(
  'droid',
  'the escape check over a CLI that does not ask (neo flow run)',
  (cli) => {
    it('droid at full (auto-high, it never asks) creates a file in the user’s checkout: the step fails with FLOW_ESCAPE naming it', async () => {
      const box = await sandbox();
      await writeFile(
        join(box.repo, 'plan.yaml'),
        `name: droid-escape
defaults: { backend: droid, maxPosture: full, posture: full, model: "${DROID_MODEL}", maxRounds: 2 }
steps:
  - id: work
    brief: Write the file.
    requireChange: false
`,
      );
      await execa('git', ['add', '-A'], { cwd: box.repo });
      await execa('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.com', 'commit', '-qm', 'init'], {
        cwd: box.repo,
      });
      const outside = join(box.repo, 'escaped.txt');
      const model = await serveModel(SCRIPT, box.root, { outside });
      const env = await droidEnv(box, model.url, cli.bin);
      const result = await runNeo(['flow', 'run', 'plan.yaml', '--json'], {
        cwd: box.repo,
        env: env as Record<string, string>,
        timeout: 200_000,
      });
      // Droid did write there (it never asked); neo must not call that a success.
      expect(await readFile(outside, 'utf8')).toBe('escaped\n');
      expect(result.exitCode).not.toBe(0);
      const home = env.NEO_HOME!;
      const [runId] = (await readdir(join(home, 'runs'))).filter((name) => !name.includes('.'));
      const snapshot = JSON.parse(await readFile(join(home, 'runs', runId!, 'snapshot.json'), 'utf8'));
      const work = snapshot.state.steps.work;
      expect(work).toMatchObject({ status: 'failed', verdict: 'escaped', error: { code: 'FLOW_ESCAPE' } });
      expect(work.error.message).toContain(outside);
      await model.stop();
      expect(processesIn(box.repo)).toEqual([]);
    }, 240_000);
  },
  { describe, skip: (name) => it.skip(name, () => {}) },
);
