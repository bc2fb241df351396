import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { cliSetup, type CliId } from './harness/cli-setups.js';
import { describeCli, ROOT } from './harness/clis.js';
import { serveModel } from './harness/model-serve.js';
import { processesIn } from './harness/processes.js';
import { sandbox } from './harness/sandbox.js';

const NEO = join(ROOT, 'dist', 'bin', 'neo.js');
const SCRIPT = join(ROOT, 'tests', 'fixtures', 'model-scripts', 'spend.yaml');

/**
 * A budget inside a turn, on the real CLIs that report each model call's usage as the turn
 * streams: a turn that would read forever (2,300 tokens a call) under maxTokens 5,000 is
 * interrupted at the call that crosses it, exit 4, and the summary's figures are the ledger's.
 */
for (const id of ['claude', 'codex'] as CliId[]) {
  describeCli(
    id,
    'maxTokens inside a turn through neo flow run',
    (cli) => {
      it('the turn that crosses maxTokens is interrupted; exit 4, FLOW_BUDGET_EXCEEDED mid-turn', async () => {
        const box = await sandbox();
        const model = await serveModel(SCRIPT, box.root);
        const setup = await cliSetup(id, box, model.url, cli.bin);
        await writeFile(join(box.repo, 'README.md'), '# scratch repo\n');
        await writeFile(
          join(box.repo, 'spend.flow.yaml'),
          [
            'name: spend',
            `defaults: { backend: ${setup.backend}, maxPosture: acceptEdits, budgets: { maxTokens: 5000 } }`,
            'steps:',
            '  - id: read',
            '    brief: read the README again and again',
            '    requireChange: false',
            ...(setup.model === undefined ? [] : [`    model: ${setup.model}`]),
            '',
          ].join('\n'),
        );
        await execa('git', ['add', '-A'], { cwd: box.repo });
        await execa('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.com', 'commit', '-qm', 'plan'], {
          cwd: box.repo,
        });
        const run = await execa(process.execPath, [NEO, 'flow', 'run', 'spend.flow.yaml', '--json'], {
          cwd: box.repo,
          env: setup.env,
          extendEnv: false,
          reject: false,
          timeout: 240_000,
        });
        const calls = model.mainRequests().length;
        await model.stop();
        const summary = JSON.parse(run.stdout.trim().split('\n').at(-1)!) as {
          exitCode: number;
          cause?: string;
          reason?: { code: string; message: string };
        };
        expect(run.exitCode, run.stdout.slice(-2000) + run.stderr).toBe(4);
        expect(summary.reason?.code).toBe('FLOW_BUDGET_EXCEEDED');
        expect(summary.reason?.message).toMatch(/^budget maxTokens crossed mid-turn \(\d+ tokens used of 5000\)/);
        // Three calls cross 5,000; a check only at the turn's end would let it run on and on.
        expect(calls).toBeLessThanOrEqual(4);
        expect(processesIn(box.repo)).toEqual([]);
      }, 300_000);
    },
    { describe, skip: (name) => it.skip(name, () => {}) },
  );
}
