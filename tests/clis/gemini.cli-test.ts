import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { lastOf } from '../contract/event-reader.js';
import { GEMINI_MODEL, geminiEnv } from './harness/acp-configs.js';
import { describeCli, ROOT } from './harness/clis.js';
import { serveModel } from './harness/model-serve.js';
import { processesIn } from './harness/processes.js';
import { sandbox } from './harness/sandbox.js';
import { packagedBackend, startSession } from './harness/session.js';

const SCRIPT = join(ROOT, 'tests', 'fixtures', 'model-scripts', 'gemini.yaml');

describeCli(
  'gemini',
  'acp adapter (gemini --acp)',
  (cli) => {
    it('runs a command and writes through its own tools, asks (allow + deny), takes guidance, interrupts', async () => {
      const box = await sandbox();
      const model = await serveModel(SCRIPT, box.root);
      const env = await geminiEnv(box, model.url, cli.bin);
      const backend = await packagedBackend('gemini', box);
      const first = await startSession(backend, {
        cwd: box.repo,
        posture: 'default',
        model: GEMINI_MODEL,
        env,
        brief: 'Create shell.txt, then denied.txt.',
      });
      try {
        const toShell = await first.reader.untilType('clarify');
        const started = lastOf(toShell, 'started');
        expect(started.externalSessionId).toMatch(/^[0-9a-f-]{36}$/);
        expect(started.model).toBe(GEMINI_MODEL);
        // Gemini's shell ask carries the command only as its title.
        const shell = lastOf(toShell, 'clarify');
        expect(shell).toMatchObject({ toolName: 'execute' });
        await first.session.answer(shell.clarificationId, { allow: true });
        const toWrite = await first.reader.untilType('clarify');
        expect(lastOf(toWrite, 'tool_result')).toMatchObject({ isError: false });
        const write = lastOf(toWrite, 'clarify');
        expect(write).toMatchObject({ toolName: 'edit' });
        await first.session.answer(write.clarificationId, { allow: false, reason: 'Host policy: no write here' });
        // Gemini sends no tool_call_update for a call it was refused: the model hears of it, neo sees none.
        const end1 = await first.reader.untilType('turn_complete');
        expect(lastOf(end1, 'turn_complete').text).toBe('The command ran; the write was denied.');
        expect(readFileSync(join(box.repo, 'shell.txt'), 'utf8')).toBe('made-by-shell\n');
        expect(existsSync(join(box.repo, 'denied.txt'))).toBe(false);

        // Turn 2, from guidance: a new file, written through neo's fs/write_text_file.
        await first.session.sendGuidance('second round: now write hello.txt');
        const ask2 = lastOf(await first.reader.untilType('clarify'), 'clarify');
        expect(ask2).toMatchObject({ toolName: 'edit' });
        await first.session.answer(ask2.clarificationId, { allow: true });
        expect(lastOf(await first.reader.untilType('turn_complete'), 'turn_complete').text).toBe('Created hello.txt.');
        expect(readFileSync(join(box.repo, 'hello.txt'), 'utf8')).toBe('hello from neo\n');

        await first.session.sendGuidance('third round: take your time');
        await expect
          .poll(() => model.mainRequests().some((r) => r.reply?.stall === true), { timeout: 60_000 })
          .toBe(true);
        await first.session.interrupt();
        const interrupted = await first.reader.until(
          (e) => e.type === 'turn_complete' || e.type === 'error',
          'the end of the interrupted turn',
        );
        expect(lastOf(interrupted, 'turn_complete')).toMatchObject({ interrupted: true });
        await first.session.sendGuidance('fourth round: are you back?');
        expect(lastOf(await first.reader.untilType('turn_complete'), 'turn_complete').text).toBe(
          'Back after the interrupt.',
        );
      } finally {
        await first.session.stop();
      }
      // Resume (session/load) is not checked here: Gemini writes the conversation to its session file
      // when it exits, and neo's stop gives a CLI one second after EOF before SIGTERM — too short for
      // Gemini on a busy machine, which then leaves a session file session/load does not accept.
      expect((await model.stop()).exitCode).toBe(130);
      expect(model.requests().flatMap((r) => r.warnings)).toEqual([]);
      expect(processesIn(box.repo)).toEqual([]);
    }, 300_000);

    it("a privileged mode in an untrusted folder fails the start with Gemini's own reason, not a bare Internal error", async () => {
      const box = await sandbox();
      const model = await serveModel(SCRIPT, box.root);
      const backend = await packagedBackend('gemini', box);
      backend.data.postureMap.acceptEdits = { mode: 'autoEdit' };
      await expect(
        startSession(backend, {
          cwd: box.repo,
          posture: 'acceptEdits',
          model: GEMINI_MODEL,
          env: await geminiEnv(box, model.url, cli.bin),
          brief: 'never runs',
        }),
      ).rejects.toMatchObject({
        message: expect.stringContaining(
          'Internal error: Cannot enable privileged approval modes in an untrusted folder.',
        ),
      });
      await model.stop();
      expect(processesIn(box.repo)).toEqual([]);
    });
  },
  { describe, skip: (name) => it.skip(name, () => {}) },
);
