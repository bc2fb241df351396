/**
 * A real CLI inside bwrap (`sandbox: bwrap`): Droid at its full mapping, which never asks.
 * Writing into the user's checkout cannot reach it; weakening the test it is judged by fails the
 * step naming the protected path (the gate judged the original).
 */
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { runNeo } from '../helpers/cli.js';
import { DROID_MODEL, droidEnv } from './harness/acp-configs.js';
import { describeCli, ROOT } from './harness/clis.js';
import { serveModel } from './harness/model-serve.js';
import { processesIn } from './harness/processes.js';
import { sandbox } from './harness/sandbox.js';

const SCRIPTS = join(ROOT, 'tests', 'fixtures', 'model-scripts');
const TEST = "const assert = require('node:assert');\nassert.strictEqual(require('../sum.js')(2, 3), 5);\n";

async function commit(repo: string): Promise<void> {
  await execa('git', ['add', '-A'], { cwd: repo });
  await execa('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.com', 'commit', '-qm', 'init'], { cwd: repo });
}

const last = (stdout: string) =>
  JSON.parse(stdout.trim().split('\n').at(-1)!) as { status: string; cause: string | null; exitCode: number };

describeCli(
  'droid',
  'a real CLI in the bwrap sandbox (neo flow run, sandbox: bwrap)',
  (cli) => {
    it('droid at full writes into the user’s checkout: in bwrap the write never reaches it, and the attempt is reported', async () => {
      const box = await sandbox();
      await writeFile(
        join(box.repo, 'plan.yaml'),
        `name: droid-boxed\nsandbox: bwrap\ndefaults: { backend: droid, maxPosture: full, posture: full, model: "${DROID_MODEL}", maxRounds: 2 }\nsteps:\n  - id: work\n    brief: Write the file.\n    requireChange: false\n`,
      );
      await commit(box.repo);
      const outside = join(box.repo, 'escaped.txt');
      const model = await serveModel(join(SCRIPTS, 'droid-escape.yaml'), box.root, { outside });
      const env = await droidEnv(box, model.url, cli.bin);
      const result = await runNeo(['flow', 'run', 'plan.yaml', '--json'], {
        cwd: box.repo,
        env: env as Record<string, string>,
        timeout: 200_000,
      });
      await model.stop();
      // Contained (the checkout is not even visible in the sandbox) and still reported: the CLI
      // said its edit outside the workspace succeeded, which the step guard never calls a success.
      expect(existsSync(outside), result.stdout).toBe(false);
      expect(last(result.stdout), result.stdout).toMatchObject({ cause: 'FLOW_ESCAPE', exitCode: 1 });
      expect(processesIn(box.repo)).toEqual([]);
    }, 240_000);

    it('droid weakens the test it is judged by: the step fails naming the protected path', async () => {
      const box = await sandbox();
      await mkdir(join(box.repo, 'test'), { recursive: true });
      await writeFile(join(box.repo, 'sum.js'), 'module.exports = (a, b) => a - b;\n');
      await writeFile(join(box.repo, 'test', 'sum.test.js'), TEST);
      await writeFile(
        join(box.repo, 'plan.yaml'),
        `name: droid-weaken\nsandbox: bwrap\ndefaults: { backend: droid, maxPosture: full, posture: full, model: "${DROID_MODEL}", maxRounds: 2 }\nsteps:\n  - id: fix\n    brief: Make node test/sum.test.js pass.\n    protect: ["test/**"]\n    verify: node test/sum.test.js\n`,
      );
      await commit(box.repo);
      const model = await serveModel(join(SCRIPTS, 'droid-weaken.yaml'), box.root, {});
      const env = await droidEnv(box, model.url, cli.bin);
      const result = await runNeo(['flow', 'run', 'plan.yaml', '--json'], {
        cwd: box.repo,
        env: env as Record<string, string>,
        timeout: 200_000,
      });
      await model.stop();
      expect(last(result.stdout), result.stdout).toMatchObject({ cause: 'FLOW_PROTECTED_EDIT', exitCode: 1 });
      expect(result.stdout).toMatch(/the agent changed protected path test\/sum\.test\.js/);
      expect(readFileSync(join(box.repo, 'test', 'sum.test.js'), 'utf8')).toBe(TEST);
      expect(processesIn(box.repo)).toEqual([]);
    }, 240_000);
  },
  { describe, skip: (name) => it.skip(name, () => {}) },
);
