import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { lastOf } from '../contract/event-reader.js';
import { opencodeEnv } from './harness/acp-configs.js';
import { describeCli, ROOT } from './harness/clis.js';
import { serveModel } from './harness/model-serve.js';
import { processesIn } from './harness/processes.js';
import { checkResume } from './harness/resume.js';
import { sandbox } from './harness/sandbox.js';
import { packagedBackend, startSession } from './harness/session.js';

const SCRIPT = join(ROOT, 'tests', 'fixtures', 'model-scripts', 'opencode.yaml');

describeCli(
  'opencode',
  'acp adapter (opencode acp)',
  (cli) => {
    it('runs a command and writes through its own tools, asks (allow + deny), takes guidance, interrupts, resumes as it can', async () => {
      const box = await sandbox();
      const model = await serveModel(SCRIPT, box.root);
      const env = await opencodeEnv(box, model.url, cli.bin);
      const backend = await packagedBackend('opencode', box);
      const base = { cwd: box.repo, posture: 'default' as const, env };
      const first = await startSession(backend, { ...base, brief: 'Create bash.txt, then denied.txt.' });
      let externalId: string | undefined;
      try {
        const toBash = await first.reader.untilType('clarify');
        externalId = lastOf(toBash, 'started').externalSessionId;
        const bash = lastOf(toBash, 'clarify');
        expect(bash).toMatchObject({ toolName: 'execute', input: { command: 'echo made-by-bash > bash.txt' } });
        await first.session.answer(bash.clarificationId, { allow: true });
        const toWrite = await first.reader.untilType('clarify');
        expect(lastOf(toWrite, 'tool_result')).toMatchObject({ isError: false });
        const write = lastOf(toWrite, 'clarify');
        expect(write).toMatchObject({ toolName: 'edit', input: { filepath: join(box.repo, 'denied.txt') } });
        await first.session.answer(write.clarificationId, { allow: false, reason: 'Host policy: no write here' });
        // OpenCode ends the turn after a denial without asking the model again.
        const end1 = await first.reader.untilType('turn_complete');
        expect(lastOf(end1, 'tool_result')).toMatchObject({
          isError: true,
          output: expect.stringContaining('rejected'),
        });
        expect(lastOf(end1, 'turn_complete').costUsd).toBe(0);
        expect(readFileSync(join(box.repo, 'bash.txt'), 'utf8')).toBe('made-by-bash\n');
        expect(existsSync(join(box.repo, 'denied.txt'))).toBe(false);

        await first.session.sendGuidance('second round: now write hello.txt');
        const ask2 = lastOf(await first.reader.untilType('clarify'), 'clarify');
        expect(ask2).toMatchObject({ toolName: 'edit', input: { filepath: join(box.repo, 'hello.txt') } });
        await first.session.answer(ask2.clarificationId, { allow: true });
        expect(lastOf(await first.reader.untilType('turn_complete'), 'turn_complete').text).toBe('Created hello.txt.');
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
      // The title request has no tools: answered as aux, it took no turn.
      expect(model.requests().filter((r) => r.role === 'aux').length).toBeGreaterThan(0);
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
