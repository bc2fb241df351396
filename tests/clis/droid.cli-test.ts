import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { lastOf } from '../contract/event-reader.js';
import { DROID_MODEL, droidEnv } from './harness/acp-configs.js';
import { describeCli, ROOT } from './harness/clis.js';
import { serveModel } from './harness/model-serve.js';
import { processesIn } from './harness/processes.js';
import { checkResume } from './harness/resume.js';
import { sandbox } from './harness/sandbox.js';
import { packagedBackend, startSession } from './harness/session.js';

const SCRIPT = join(ROOT, 'tests', 'fixtures', 'model-scripts', 'droid.yaml');

describeCli(
  'droid',
  'acp adapter (droid exec --output-format acp)',
  (cli) => {
    it('runs a command and creates a file through its own tools, asks (allow + deny), takes guidance, interrupts, resumes', async () => {
      const box = await sandbox();
      const model = await serveModel(SCRIPT, box.root);
      const env = await droidEnv(box, model.url, cli.bin);
      const backend = await packagedBackend('droid', box);
      const base = { cwd: box.repo, posture: 'default' as const, model: DROID_MODEL, env };
      const first = await startSession(backend, { ...base, brief: 'Create bash.txt, then denied.txt.' });
      let externalId: string | undefined;
      try {
        const toExec = await first.reader.untilType('clarify');
        const started = lastOf(toExec, 'started');
        externalId = started.externalSessionId;
        expect(started.model).toBe(DROID_MODEL);
        const exec = lastOf(toExec, 'clarify');
        expect(exec).toMatchObject({ toolName: 'execute', input: { command: 'echo made-by-bash > bash.txt' } });
        await first.session.answer(exec.clarificationId, { allow: true });
        const toCreate = await first.reader.untilType('clarify');
        expect(lastOf(toCreate, 'tool_result')).toMatchObject({ isError: false });
        const create = lastOf(toCreate, 'clarify');
        expect(create).toMatchObject({ toolName: 'edit', input: { file_path: join(box.repo, 'denied.txt') } });
        await first.session.answer(create.clarificationId, { allow: false, reason: 'Host policy: no Create here' });
        const end1 = await first.reader.untilType('turn_complete');
        // Droid ends the turn after a denial without asking the model again, and says nothing about it.
        expect(end1).toEqual([
          {
            type: 'tool_result',
            id: expect.any(String),
            output: '(droid reported the call failed and sent no output)',
            isError: true,
          },
          { type: 'turn_complete', text: 'Now the file.' },
        ]);
        expect(readFileSync(join(box.repo, 'bash.txt'), 'utf8')).toBe('made-by-bash\n');
        expect(existsSync(join(box.repo, 'denied.txt'))).toBe(false);

        await first.session.sendGuidance('second round: now write hello.txt');
        const ask2 = lastOf(await first.reader.untilType('clarify'), 'clarify');
        expect(ask2).toMatchObject({
          toolName: 'edit',
          input: { file_path: join(box.repo, 'hello.txt'), content: 'hello from neo\n' },
        });
        await first.session.answer(ask2.clarificationId, { allow: true });
        const turn2 = lastOf(await first.reader.untilType('turn_complete'), 'turn_complete');
        expect(turn2.text).toBe('Created hello.txt.');
        // No usage_update arrives over ACP from this CLI: the turn carries no usage and no cost.
        expect([turn2.usage, turn2.costUsd]).toEqual([undefined, undefined]);
        expect(readFileSync(join(box.repo, 'hello.txt'), 'utf8')).toBe('hello from neo\n');

        await first.session.sendGuidance('third round: take your time');
        await expect
          .poll(() => model.mainRequests().some((r) => r.reply?.stall === true), { timeout: 120_000 })
          .toBe(true);
        await first.session.interrupt();
        const interrupted = await first.reader.until(
          (e) => e.type === 'turn_complete' || e.type === 'error',
          'the end of the interrupted turn',
        );
        expect(interrupted).toEqual([
          { type: 'text', text: 'Thinking' },
          expect.objectContaining({ type: 'turn_complete', interrupted: true }),
        ]);
        await first.session.sendGuidance('fourth round: are you back?');
        expect(lastOf(await first.reader.untilType('turn_complete'), 'turn_complete').text).toBe(
          'Back after the interrupt.',
        );
      } finally {
        await first.session.stop();
      }
      await checkResume(
        backend,
        { ...base, brief: 'after resume: what did we do?', resumeSessionId: externalId! },
        model,
        { reply: 'Resumed; I remember the second round.', remembers: 'second round: now write hello.txt' },
      );
      expect((await model.stop()).exitCode).toBe(130);
      expect(model.requests().flatMap((r) => r.warnings)).toEqual([]);
      // Every CLI process the sessions started is gone (stop takes the whole process group down).
      expect(processesIn(box.repo)).toEqual([]);
    }, 600_000);
  },
  { describe, skip: (name) => it.skip(name, () => {}) },
);
