import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { lastOf } from '../contract/event-reader.js';
import { describeCli, ROOT } from './harness/clis.js';
import { codexHome } from './harness/codex-home.js';
import { serveModel } from './harness/model-serve.js';
import { processesIn } from './harness/processes.js';
import { checkResume } from './harness/resume.js';
import { sandbox } from './harness/sandbox.js';
import { packagedBackend, startSession } from './harness/session.js';

const SCRIPT = join(ROOT, 'tests', 'fixtures', 'model-scripts', 'codex.yaml');

describeCli(
  'codex',
  'codex adapter',
  (cli) => {
    it('patches through its own tool, asks (accept + decline), takes guidance, interrupts, resumes, reports usage', async () => {
      const box = await sandbox();
      const model = await serveModel(SCRIPT, box.root);
      const env = { ...box.baseEnv, NEO_CODEX_BIN: cli.bin, ...(await codexHome(box.home, model.url)) };
      const backend = await packagedBackend('codex', box);
      const base = { cwd: box.repo, posture: 'default' as const, model: 'gpt-5.5', env };
      const first = await startSession(backend, { ...base, brief: 'Create hello.txt, then exec.txt.' });
      let externalId: string | undefined;
      try {
        const toPatch = await first.reader.untilType('clarify');
        externalId = lastOf(toPatch, 'started').externalSessionId;
        expect(externalId).toBeTruthy();
        const patch = lastOf(toPatch, 'clarify');
        expect(patch).toMatchObject({
          toolName: 'fileChange',
          input: { changes: [{ path: join(box.repo, 'hello.txt'), kind: { type: 'add' }, diff: 'hello from neo\n' }] },
        });
        await first.session.answer(patch.clarificationId, { allow: true });
        const toExec = await first.reader.untilType('clarify');
        expect(lastOf(toExec, 'tool_result')).toMatchObject({
          isError: false,
          output: `completed: add ${join(box.repo, 'hello.txt')}`,
        });
        const exec = lastOf(toExec, 'clarify');
        expect(exec).toMatchObject({
          toolName: 'commandExecution',
          input: {
            command: "/bin/bash -lc 'echo made-by-exec > exec.txt'",
            reason: 'Write exec.txt outside the read-only sandbox',
          },
        });
        await first.session.answer(exec.clarificationId, { allow: false, reason: 'no commands outside the sandbox' });
        const turn1 = lastOf(await first.reader.untilType('turn_complete'), 'turn_complete');
        expect(turn1.text).toContain('The patch applied; the command was declined.');
        expect(turn1.usage?.inputTokens).toBeGreaterThan(0);
        expect(turn1.costUsd).toBeGreaterThan(0);
        expect(readFileSync(join(box.repo, 'hello.txt'), 'utf8')).toBe('hello from neo\n');
        expect(existsSync(join(box.repo, 'exec.txt'))).toBe(false);

        await first.session.sendGuidance('second round: anything else?');
        expect(lastOf(await first.reader.untilType('turn_complete'), 'turn_complete').text).toBe('Second turn done.');

        await first.session.sendGuidance('third round: take your time');
        await expect
          .poll(() => model.mainRequests().some((r) => r.reply?.stall === true), { timeout: 60_000 })
          .toBe(true);
        await first.session.interrupt();
        const interrupted = await first.reader.until(
          (e) => e.type === 'turn_complete' || e.type === 'error',
          'the end of the interrupted turn',
        );
        expect(interrupted.filter((e) => e.type !== 'text' && e.type !== 'usage')).toEqual([
          expect.objectContaining({ type: 'turn_complete', interrupted: true }),
        ]);

        await first.session.sendGuidance('fourth round: are you back?');
        expect(lastOf(await first.reader.untilType('turn_complete'), 'turn_complete').text).toBe(
          'Back after the interrupt.',
        );
      } finally {
        await first.session.stop();
      }

      // Resume by the CLI's own session id: the model sees the earlier conversation.
      await checkResume(
        backend,
        { ...base, brief: 'after resume: what did we do?', resumeSessionId: externalId! },
        model,
        { reply: 'Resumed; I remember the second round.', remembers: 'second round: anything else?' },
      );
      expect((await model.stop()).exitCode).toBe(130);
      expect(model.requests().flatMap((r) => r.warnings)).toEqual([]);
      // Every CLI process the sessions started is gone (stop takes the whole process group down).
      expect(processesIn(box.repo)).toEqual([]);
    });
  },
  { describe, skip: (name) => it.skip(name, () => {}) },
);
