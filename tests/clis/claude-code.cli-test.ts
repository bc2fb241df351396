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

const SCRIPT = join(ROOT, 'tests', 'fixtures', 'model-scripts', 'claude-code.yaml');

describeCli(
  'claude',
  'claude-code adapter',
  (cli) => {
    it('writes through its own tool, asks (allow + deny), takes guidance, interrupts, resumes, reports cost', async () => {
      const box = await sandbox();
      const model = await serveModel(SCRIPT, box.root);
      const env = {
        ...box.baseEnv,
        NEO_CLAUDE_CODE_BIN: cli.bin,
        CLAUDE_CONFIG_DIR: join(box.home, '.claude'),
        ANTHROPIC_BASE_URL: model.url,
        ANTHROPIC_API_KEY: 'sk-ant-neo-scripted',
        CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
        DISABLE_AUTOUPDATER: '1',
        DISABLE_TELEMETRY: '1',
        DISABLE_ERROR_REPORTING: '1',
      };
      const backend = await packagedBackend('claude-code', box);
      const base = { cwd: box.repo, posture: 'default' as const, model: 'claude-sonnet-4-5', env };
      const first = await startSession(backend, { ...base, brief: 'Create bash.txt, then denied.txt.' });
      let externalId: string | undefined;
      try {
        // Turn 1: Bash asks and is allowed; Write asks and is denied.
        const toBash = await first.reader.untilType('clarify');
        const started = lastOf(toBash, 'started');
        externalId = started.externalSessionId;
        expect(externalId).toMatch(/^[0-9a-f-]{36}$/);
        const bash = lastOf(toBash, 'clarify');
        expect(bash).toMatchObject({ toolName: 'Bash', input: { command: 'echo made-by-bash > bash.txt' } });
        await first.session.answer(bash.clarificationId, { allow: true });
        const toWrite = await first.reader.untilType('clarify');
        expect(lastOf(toWrite, 'tool_result')).toMatchObject({ isError: false });
        const write = lastOf(toWrite, 'clarify');
        expect(write).toMatchObject({ toolName: 'Write', input: { file_path: join(box.repo, 'denied.txt') } });
        await first.session.answer(write.clarificationId, { allow: false, reason: 'Host policy: no Write here' });
        const end1 = await first.reader.untilType('turn_complete');
        expect(lastOf(end1, 'tool_result')).toMatchObject({
          isError: true,
          output: expect.stringContaining('Host policy: no Write here'),
        });
        const turn1 = lastOf(end1, 'turn_complete');
        expect(turn1.text).toBe('Bash succeeded; the Write was denied.');
        expect(turn1.costUsd).toBeGreaterThan(0);
        expect(turn1.usage?.inputTokens).toBeGreaterThan(0);
        expect(readFileSync(join(box.repo, 'bash.txt'), 'utf8')).toBe('made-by-bash\n');
        expect(existsSync(join(box.repo, 'denied.txt'))).toBe(false);

        // Turn 2, from guidance: Write asks again and is allowed; the CLI's own tool writes the file.
        await first.session.sendGuidance('second round: now write hello.txt');
        const ask2 = lastOf(await first.reader.untilType('clarify'), 'clarify');
        expect(ask2).toMatchObject({ toolName: 'Write' });
        await first.session.answer(ask2.clarificationId, { allow: true });
        const turn2 = lastOf(await first.reader.untilType('turn_complete'), 'turn_complete');
        expect(turn2.text).toBe('Created hello.txt.');
        expect(readFileSync(join(box.repo, 'hello.txt'), 'utf8')).toBe('hello from neo\n');

        // Turn 3 stalls at the model; neo interrupts it and the session stays usable.
        await first.session.sendGuidance('third round: take your time');
        await expect
          .poll(() => model.mainRequests().some((r) => r.reply?.stall === true), { timeout: 60_000 })
          .toBe(true);
        await first.session.interrupt();
        const afterInterrupt = await first.reader.until(
          (e) => e.type === 'turn_complete' || e.type === 'error',
          'the end of the interrupted turn',
        );
        // The interrupted model call's spending arrives as a usage event (in-turn budgets); not the subject here.
        expect(afterInterrupt.filter((e) => e.type !== 'usage')).toEqual([
          { type: 'text', text: 'Thinking' },
          expect.objectContaining({ type: 'turn_complete', interrupted: true }),
        ]);

        // The same process takes the next turn after the interrupt.
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
        { reply: 'Resumed; I remember the second round.', remembers: 'second round: now write hello.txt' },
      );
      const served = await model.stop();
      expect(served.exitCode).toBe(130);
      expect(model.requests().flatMap((r) => r.warnings)).toEqual([]);
      // Every CLI process the sessions started is gone (stop takes the whole process group down).
      expect(processesIn(box.repo)).toEqual([]);
    });
  },
  { describe, skip: (name) => it.skip(name, () => {}) },
);
