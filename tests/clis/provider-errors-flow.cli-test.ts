import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { cliSetup } from './harness/cli-setups.js';
import { describeCli, ROOT } from './harness/clis.js';
import { serveModel } from './harness/model-serve.js';
import { processesIn } from './harness/processes.js';
import { sandbox, type Sandbox } from './harness/sandbox.js';

const NEO = join(ROOT, 'dist', 'bin', 'neo.js');
const SCRIPT = join(ROOT, 'tests', 'fixtures', 'model-scripts', 'provider-faults.yaml');

const plan = (brief: string) => `name: review
workspace: { isolation: inplace }
defaults: { maxPosture: acceptEdits }
steps:
  - { id: review, backend: claude-code, posture: acceptEdits, requireChange: false, brief: "${brief}" }
`;

async function repoWith(box: Sandbox, brief: string): Promise<void> {
  await writeFile(join(box.repo, 'plan.yaml'), plan(brief));
  await execa('git', ['add', '-A'], { cwd: box.repo });
  await execa('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.com', 'commit', '-qm', 'plan'], {
    cwd: box.repo,
  });
}

/**
 * The real Claude Code through `neo flow run`, its model server failing: a rejected or forbidden
 * key (which Claude would retry ten times over about three minutes) fails the step at once with
 * exit 5, and a 500 it retries by itself shows on the terminal as each retry happens.
 */
describeCli(
  'claude',
  'a provider error through neo flow run',
  (cli) => {
    for (const [fault, status] of [
      ['unauthorized', 401],
      ['forbidden', 403],
    ] as const) {
      it(`HTTP ${status}: the step fails TRANSPORT_UNAUTHENTICATED with exit 5, not retried as if transient`, async () => {
        const box = await sandbox();
        const model = await serveModel(SCRIPT, box.root);
        const { env } = await cliSetup('claude', box, model.url, cli.bin);
        await repoWith(box, `${fault}: say something`);
        const started = Date.now();
        const run = await execa(process.execPath, [NEO, 'flow', 'run', 'plan.yaml'], {
          cwd: box.repo,
          env,
          extendEnv: false,
          reject: false,
          timeout: 120_000,
        });
        const elapsed = Date.now() - started;
        const requests = model.mainRequests().length;
        await model.stop();
        expect(run.exitCode, run.stdout + run.stderr).toBe(5);
        expect(run.stdout).toMatch(
          new RegExp(
            `TRANSPORT_UNAUTHENTICATED: the agent failed: claude-code: it is not authenticated .*HTTP ${status}`,
          ),
        );
        expect(elapsed).toBeLessThan(30_000);
        // Claude's own policy would make ten requests; neo ends the turn at the first retry notice.
        expect(requests).toBeLessThanOrEqual(3);
        expect(processesIn(box.repo)).toEqual([]);
      }, 180_000);
    }

    it('HTTP 500: each retry is a `step review:` line on the terminal while the step runs', async () => {
      const box = await sandbox();
      const model = await serveModel(SCRIPT, box.root);
      const { env } = await cliSetup('claude', box, model.url, cli.bin);
      await repoWith(box, 'server error: say something');
      const run = execa(process.execPath, [NEO, 'flow', 'run', 'plan.yaml'], {
        cwd: box.repo,
        env,
        extendEnv: false,
        reject: false,
        timeout: 180_000,
      });
      // Two retry lines while the run is still going, then Ctrl-C.
      const retries: string[] = [];
      let buffered = '';
      run.stdout!.on('data', (chunk: Buffer) => {
        buffered += chunk.toString();
        const lines = buffered.split('\n');
        buffered = lines.pop()!;
        for (const line of lines)
          if (line.startsWith('step review: ')) {
            retries.push(line);
            if (retries.length === 2) run.kill('SIGINT');
          }
      });
      const result = await run;
      await model.stop();
      expect(retries, result.stdout).toEqual([
        'step review: claude got HTTP 500 from the model provider and is retrying (attempt 1/10)',
        'step review: claude got HTTP 500 from the model provider and is retrying (attempt 2/10)',
      ]);
      // Interrupted by the user, not ended by the provider: the run is resumable.
      expect(result.exitCode).toBe(130);
      expect(processesIn(box.repo)).toEqual([]);
    }, 240_000);
  },
  { describe, skip: (name) => it.skip(name, () => {}) },
);
