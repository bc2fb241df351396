import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { lastOf } from '../contract/event-reader.js';
import { describeCli, ROOT } from './harness/clis.js';
import { serveModel } from './harness/model-serve.js';
import { processesIn } from './harness/processes.js';
import { checkResume } from './harness/resume.js';
import { sandbox } from './harness/sandbox.js';
import { packagedBackend, startSession } from './harness/session.js';

const SCRIPT = join(ROOT, 'tests', 'fixtures', 'model-scripts', 'copilot.yaml');

describeCli(
  'copilot',
  'acp adapter (copilot --acp)',
  (cli) => {
    it('runs a command and patches through its own tools, asks (allow + deny), takes guidance, interrupts, resumes as its descriptor says', async () => {
      const box = await sandbox();
      const model = await serveModel(SCRIPT, box.root);
      // BYOK: Copilot talks to the scripted server over Chat Completions with no GitHub login.
      const env = {
        ...box.baseEnv,
        NEO_COPILOT_BIN: cli.bin,
        COPILOT_HOME: join(box.home, '.copilot'),
        COPILOT_OFFLINE: 'true',
        COPILOT_AUTO_UPDATE: 'false',
        COPILOT_PROVIDER_BASE_URL: `${model.url}/v1`,
        COPILOT_PROVIDER_TYPE: 'openai',
        COPILOT_PROVIDER_WIRE_API: 'completions',
        COPILOT_PROVIDER_API_KEY: 'neo-scripted',
        COPILOT_MODEL: 'gpt-5.4',
      };
      const backend = await packagedBackend('copilot', box);
      const base = { cwd: box.repo, posture: 'default' as const, env };
      const first = await startSession(backend, { ...base, brief: 'Create bash.txt, then denied.txt.' });
      let externalId: string | undefined;
      try {
        const toBash = await first.reader.untilType('clarify');
        externalId = lastOf(toBash, 'started').externalSessionId;
        const bash = lastOf(toBash, 'clarify');
        expect(bash).toMatchObject({ toolName: 'execute', input: { command: 'echo made-by-bash > bash.txt' } });
        await first.session.answer(bash.clarificationId, { allow: true });
        const toPatch = await first.reader.untilType('clarify');
        expect(lastOf(toPatch, 'tool_result')).toMatchObject({ isError: false });
        const patch = lastOf(toPatch, 'clarify');
        expect(patch).toMatchObject({ toolName: 'edit', input: { fileName: join(box.repo, 'denied.txt') } });
        await first.session.answer(patch.clarificationId, { allow: false, reason: 'Host policy: no patch here' });
        // Copilot ends the turn after a denial without asking the model again.
        const end1 = await first.reader.untilType('turn_complete');
        expect(lastOf(end1, 'tool_result')).toMatchObject({
          isError: true,
          output: expect.stringContaining('rejected'),
        });
        expect(readFileSync(join(box.repo, 'bash.txt'), 'utf8')).toBe('made-by-bash\n');
        expect(existsSync(join(box.repo, 'denied.txt'))).toBe(false);

        await first.session.sendGuidance('second round: now write hello.txt');
        const ask2 = lastOf(await first.reader.untilType('clarify'), 'clarify');
        expect(ask2).toMatchObject({ toolName: 'edit', input: { fileName: join(box.repo, 'hello.txt') } });
        await first.session.answer(ask2.clarificationId, { allow: true });
        const turn2 = lastOf(await first.reader.untilType('turn_complete'), 'turn_complete');
        expect(turn2.text).toBe('Created hello.txt.');
        // No usage_update arrives over ACP from this CLI: the turn carries no usage and no cost.
        expect([turn2.usage, turn2.costUsd]).toEqual([undefined, undefined]);
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
    });
  },
  { describe, skip: (name) => it.skip(name, () => {}) },
);
