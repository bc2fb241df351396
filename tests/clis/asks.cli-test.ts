import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ToolAsk } from '../../engine/posture/index.js';
import type { AgentEvent } from '../../engine/transports/index.js';
import { DROID_MODEL, GEMINI_MODEL, droidEnv, geminiEnv, opencodeEnv } from './harness/acp-configs.js';
import { anonymize, messagesOut, tapped, writeAskFixture } from './harness/asks.js';
import { describeCli, ROOT } from './harness/clis.js';
import { claudeEnv, codexEnv, copilotEnv } from './harness/envs.js';
import { EXPECTED_ASKS } from './harness/expected-asks.js';
import { serveModel } from './harness/model-serve.js';
import { processesIn } from './harness/processes.js';
import { sandbox, type Sandbox } from './harness/sandbox.js';
import { packagedBackend, startSession, type Driven } from './harness/session.js';
import { defined } from '../../engine/util/defined.js';

type Json = Record<string, unknown>;

interface AskCase {
  cli: string;
  backend: string;
  binVar: string;
  model?: string;
  env: (box: Sandbox, url: string, bin: string) => NodeJS.ProcessEnv | Promise<NodeJS.ProcessEnv>;
  /** The ask messages out of the CLI's protocol lines, each with what the adapter reads beside it. */
  asks: (messages: Json[]) => Json[];
}

const claudeAsks = (messages: Json[]): Json[] =>
  messages
    .filter((m) => m.type === 'control_request' && (m.request as Json | undefined)?.subtype === 'can_use_tool')
    .map((m) => ({ request: m.request }));

const codexAsks = (messages: Json[]): Json[] =>
  messages
    .filter((m) => typeof m.method === 'string' && m.method.endsWith('/requestApproval'))
    .map((m) => {
      const params = m.params as Json;
      const started = messages.find(
        (x) => x.method === 'item/started' && ((x.params as Json).item as Json | undefined)?.id === params.itemId,
      );
      return { method: m.method, params, item: (started?.params as Json | undefined)?.item };
    });

/** An ACP ask with the tool_call updates about the same call that came before it. */
const acpAsks = (messages: Json[]): Json[] =>
  messages
    .filter((m) => m.method === 'session/request_permission')
    .map((m) => {
      const params = m.params as Json;
      const id = (params.toolCall as Json | undefined)?.toolCallId;
      const updates = messages
        .slice(0, messages.indexOf(m))
        .filter((x) => x.method === 'session/update')
        .map((x) => (x.params as Json).update as Json)
        .filter(
          (u) => u.toolCallId === id && (u.sessionUpdate === 'tool_call' || u.sessionUpdate === 'tool_call_update'),
        );
      return { params, updates };
    });

const CASES: AskCase[] = [
  {
    cli: 'claude',
    backend: 'claude-code',
    binVar: 'NEO_CLAUDE_CODE_BIN',
    model: 'claude-sonnet-4-5',
    env: claudeEnv,
    asks: claudeAsks,
  },
  { cli: 'codex', backend: 'codex', binVar: 'NEO_CODEX_BIN', model: 'gpt-5.5', env: codexEnv, asks: codexAsks },
  { cli: 'opencode', backend: 'opencode', binVar: 'NEO_OPENCODE_BIN', env: opencodeEnv, asks: acpAsks },
  { cli: 'copilot', backend: 'copilot', binVar: 'NEO_COPILOT_BIN', env: copilotEnv, asks: acpAsks },
  { cli: 'droid', backend: 'droid', binVar: 'NEO_DROID_BIN', model: DROID_MODEL, env: droidEnv, asks: acpAsks },
  { cli: 'gemini', backend: 'gemini', binVar: 'NEO_GEMINI_BIN', model: GEMINI_MODEL, env: geminiEnv, asks: acpAsks },
];

/**
 * Reads one turn to its end, answering each clarification the driver gets (true = allow), and
 * returns every ask neo read in it: the driver's (clarify) and the posture gate's own (gate_decision).
 */
async function turn({ session, reader }: Driven, answers: boolean[]): Promise<ToolAsk[]> {
  const asks: ToolAsk[] = [];
  for (;;) {
    const events = await reader.until(
      (e) => e.type === 'clarify' || e.type === 'turn_complete' || (e.type === 'error' && e.transient !== true),
    );
    for (const e of events) if (e.type === 'gate_decision' || (e.type === 'clarify' && e.ask)) asks.push(e.ask!);
    const last = events.at(-1)! as AgentEvent;
    if (last.type !== 'clarify') return asks;
    const allow = answers.shift() ?? false;
    await session.answer(last.clarificationId, allow ? { allow } : { allow, reason: 'denied by the asks test' });
  }
}

// A capture tool more than a test: ceiling.cli-test.ts holds every CLI to the same asks end to end, so
// this runs only to refresh the fixtures (after a CLI version bump): NEO_CAPTURE_ASKS=1.
const capture = process.env.NEO_CAPTURE_ASKS === '1';
if (!capture)
  describe('permission asks capture', () =>
    it.skip('run with NEO_CAPTURE_ASKS=1 to recapture tests/fixtures/asks', () => {}));
for (const c of capture ? CASES : []) {
  describeCli(
    c.cli,
    `permission asks (${c.backend})`,
    (cli) => {
      it('reads an edit inside, an edit into another checkout by absolute path and a command from the real shapes', async () => {
        const box = await sandbox();
        const outside = join(box.root, 'checkout');
        await mkdir(outside, { recursive: true });
        const script = join(ROOT, 'tests', 'fixtures', 'model-scripts', `asks-${c.backend}.yaml`);
        const model = await serveModel(script, box.root, { outside });
        const tap = tapped(c.binVar, cli.bin, box);
        const env = { ...(await c.env(box, model.url, cli.bin)), ...tap.env };
        const backend = await packagedBackend(c.backend, box);
        const driven = await startSession(backend, {
          cwd: box.repo,
          posture: 'default',
          env,
          brief: 'asks round one',
          ...defined({ model: c.model }),
        });
        const read: ToolAsk[] = [];
        try {
          // At posture default the edit inside goes to the driver (allowed here); the posture gate
          // itself denies the edit outside; the command goes to the driver (denied here).
          read.push(...(await turn(driven, [true])));
          await driven.session.sendGuidance('asks round two');
          read.push(...(await turn(driven, [false])));
        } finally {
          await driven.session.stop();
        }
        await model.stop();
        const expected = EXPECTED_ASKS[c.backend]!;
        const names = (['edit-inside', 'edit-outside', 'command'] as const).filter((name) => expected[name]);
        const raw = c.asks(messagesOut(tap.log));
        for (const [i, name] of names.entries())
          if (raw[i] !== undefined)
            await writeAskFixture(c.backend, name, anonymize({ cli: cli.version, ...raw[i] }, box));
        expect(anonymize(read, box)).toEqual(names.map((name) => expected[name]));
        expect(raw).toHaveLength(names.length);
        expect(existsSync(join(box.repo, 'inside.txt'))).toBe(true);
        expect(existsSync(join(outside, 'escape.txt'))).toBe(false);
        expect(existsSync(join(box.repo, 'README.md'))).toBe(true);
        expect(processesIn(box.repo)).toEqual([]);
      }, 300_000);
    },
    { describe, skip: (name) => it.skip(name, () => {}) },
  );
}
