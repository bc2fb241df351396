import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { kinds, lastOf } from '../contract/event-reader.js';
import { describeCli, ROOT } from './harness/clis.js';
import { codexHome } from './harness/codex-home.js';
import { serveModel } from './harness/model-serve.js';
import { processesIn } from './harness/processes.js';
import { sandbox } from './harness/sandbox.js';
import { packagedBackend, startSession } from './harness/session.js';

const SCRIPT = join(ROOT, 'tests', 'fixtures', 'model-scripts', 'faults.yaml');

describeCli(
  'claude',
  'model faults (claude-code adapter)',
  (cli) => {
    it('a 429 with Retry-After is retried by the CLI itself and the turn completes', async () => {
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
      };
      const backend = await packagedBackend('claude-code', box);
      const { session, reader } = await startSession(backend, {
        cwd: box.repo,
        posture: 'acceptEdits',
        model: 'claude-sonnet-4-5',
        env,
        brief: 'rate limited: say something',
      });
      try {
        expect(lastOf(await reader.untilType('turn_complete'), 'turn_complete').text).toBe('Answered after the retry.');
        expect(model.mainRequests().map((r) => [r.turn, r.reply?.status])).toEqual([
          [0, 429],
          [1, 200],
        ]);
      } finally {
        await session.stop();
      }
      expect(processesIn(box.repo)).toEqual([]);
      await model.stop();
    });
  },
  { describe, skip: (name) => it.skip(name, () => {}) },
);

describeCli(
  'codex',
  'model faults (codex adapter)',
  (cli) => {
    it('a 500 the CLI does not retry ends the turn with an error event, and the session takes the next turn', async () => {
      const box = await sandbox();
      const model = await serveModel(SCRIPT, box.root);
      const env = { ...box.baseEnv, NEO_CODEX_BIN: cli.bin, ...(await codexHome(box.home, model.url)) };
      const backend = await packagedBackend('codex', box);
      const { session, reader } = await startSession(backend, {
        cwd: box.repo,
        posture: 'acceptEdits',
        model: 'gpt-5.5',
        env,
        brief: 'server error: say something',
      });
      try {
        const failed = await reader.until((e) => e.type === 'error' || e.type === 'turn_complete', 'the failed turn');
        // Codex words a 5xx its own way; the scripted message does not reach the user.
        expect(lastOf(failed, 'error')).toMatchObject({
          code: 'TRANSPORT_PROVIDER_ERROR',
          message:
            'codex: its model provider failed: We’re currently experiencing high demand, which may cause temporary errors.',
        });
        // The server appends its request log as it answers: poll, it may trail the CLI's event by a moment.
        await expect.poll(() => model.mainRequests().map((r) => r.reply?.status)).toEqual([500]);
        await session.sendGuidance('after the outage: try again');
        expect(lastOf(await reader.untilType('turn_complete'), 'turn_complete').text).toBe('Back after the outage.');
      } finally {
        await session.stop();
      }
      expect(processesIn(box.repo)).toEqual([]);
      await model.stop();
    });

    it("a model stream that stalls trips neo's idle watchdog: a typed error, then no process left", async () => {
      const box = await sandbox();
      const model = await serveModel(SCRIPT, box.root);
      const env = { ...box.baseEnv, NEO_CODEX_BIN: cli.bin, ...(await codexHome(box.home, model.url)) };
      const backend = await packagedBackend('codex', box);
      const { session, reader } = await startSession(backend, {
        cwd: box.repo,
        posture: 'acceptEdits',
        model: 'gpt-5.5',
        env,
        brief: 'stalls: take forever',
        options: { idleTimeoutMs: 4000 },
      });
      try {
        const events = await reader.rest();
        expect(kinds(events)).toEqual(['started', 'error:TRANSPORT_IDLE_TIMEOUT']);
        expect(lastOf(events, 'error')).toMatchObject({
          message: 'codex sent nothing for 4s during a turn; stopped it',
          fatal: true,
        });
        expect(model.mainRequests()[0]!.reply?.stall).toBe(true);
      } finally {
        await session.stop();
      }
      expect(processesIn(box.repo)).toEqual([]);
      await model.stop();
    });
  },
  { describe, skip: (name) => it.skip(name, () => {}) },
);
