import { describe, expect, it } from 'vitest';
import { kinds, lastOf } from '../../contract/event-reader.js';
import { FAKE_DESCRIPTORS, readWireLog } from '../../contract/fake-backends.js';
import { fakeRun } from './harness.js';

type Msg = Record<string, unknown> & { method?: string; params?: Record<string, unknown> };

function sent(run: { received(): Array<Record<string, unknown>> }, method: string): Msg[] {
  return (run.received() as Msg[]).filter((m) => m.method === method);
}

describe('codex adapter (fake codex app-server)', () => {
  it('handshakes initialize → initialized → thread/start with the posture spelled as Codex wants, then turn/start', async () => {
    const run = await fakeRun('codex');
    const { session, reader } = await run.start({ model: 'gpt-fake', effort: 'max', appendSystemPrompt: 'Be terse.' });
    try {
      await reader.untilType('clarify');
      expect(run.argvs()[0]).toEqual(['app-server']);
      const messages = run.received() as Msg[];
      expect(messages.slice(0, 3).map((m) => m.method)).toEqual(['initialize', 'initialized', 'thread/start']);
      expect(messages.every((m) => !('jsonrpc' in m))).toBe(true);
      expect(messages[0]?.params).toMatchObject({
        clientInfo: { name: 'neo' },
        capabilities: { experimentalApi: false, optOutNotificationMethods: ['item/agentMessage/delta'] },
      });
      expect(messages[2]?.params).toEqual({
        cwd: run.cwd,
        approvalPolicy: 'on-request',
        sandbox: 'read-only',
        model: 'gpt-fake',
        developerInstructions: 'Be terse.',
      });
      const turnStart = sent(run, 'turn/start')[0]?.params;
      expect(turnStart).toEqual({
        threadId: expect.any(String),
        input: [{ type: 'text', text: 'Create hello.txt with a greeting.', text_elements: [] }],
        effort: 'xhigh',
      });
    } finally {
      await session.stop();
    }
  });

  it('answers fileChange approvals accept / decline', async () => {
    for (const allow of [true, false]) {
      const run = await fakeRun('codex');
      const { session, reader } = await run.start();
      try {
        const clarify = lastOf(await reader.untilType('clarify'), 'clarify');
        expect(clarify.toolName).toBe('fileChange');
        expect(clarify.input).toMatchObject({
          changes: [{ path: `${run.cwd}/hello.txt`, kind: { type: 'add' } }],
          reason: 'write hello.txt',
        });
        await session.answer(clarify.clarificationId, { allow });
        const rest = await reader.untilType('turn_complete');
        expect(lastOf(rest, 'tool_result')).toMatchObject({
          isError: !allow,
          output: `${allow ? 'completed' : 'declined'}: add ${run.cwd}/hello.txt`,
        });
        const reply = (run.received() as Msg[]).find((m) => m.method === undefined && 'result' in m);
        expect(reply?.result).toEqual({ decision: allow ? 'accept' : 'decline' });
      } finally {
        await session.stop();
      }
    }
  });

  it('steers the running turn with turn/steer and the active turn id', async () => {
    const run = await fakeRun('codex');
    const { session, reader } = await run.start();
    try {
      const clarify = lastOf(await reader.untilType('clarify'), 'clarify');
      await session.sendGuidance('keep it short');
      const turnReply = readWireLog(run.log).find(
        (r) =>
          r.dir === 'out' &&
          typeof (r.message?.result as { turn?: { id?: unknown } } | undefined)?.turn?.id === 'string',
      );
      const turnId = (turnReply?.message?.result as { turn: { id: string } }).turn.id;
      expect(sent(run, 'turn/steer')[0]?.params).toEqual({
        threadId: expect.any(String),
        input: [{ type: 'text', text: 'keep it short', text_elements: [] }],
        expectedTurnId: turnId,
      });
      await session.answer(clarify.clarificationId, { allow: true });
      const done = lastOf(await reader.untilType('turn_complete'), 'turn_complete');
      expect(done.text).toBe('Created hello.txt. Steered: keep it short');
    } finally {
      await session.stop();
    }
  });

  it('posture and model changes ride on the next turn/start; cost comes from the descriptor price table', async () => {
    const run = await fakeRun('codex');
    const { session, reader } = await run.start();
    try {
      const clarify = lastOf(await reader.untilType('clarify'), 'clarify');
      await session.answer(clarify.clarificationId, { allow: true });
      const first = lastOf(await reader.untilType('turn_complete'), 'turn_complete');
      expect(first.usage).toEqual({
        inputTokens: 1000,
        cachedInputTokens: 200,
        outputTokens: 150,
        reasoningTokens: 50,
      });
      expect(first.costUsd).toBeCloseTo(0.002525, 9);
      await session.setPosture('acceptEdits');
      await session.sendGuidance('again', { model: 'gpt-unpriced', effort: 'low' });
      const second = lastOf(await reader.untilType('turn_complete'), 'turn_complete');
      expect(sent(run, 'turn/start')[1]?.params).toEqual({
        threadId: expect.any(String),
        input: [{ type: 'text', text: 'again', text_elements: [] }],
        model: 'gpt-unpriced',
        effort: 'low',
        approvalPolicy: 'on-request',
        sandboxPolicy: {
          type: 'workspaceWrite',
          writableRoots: [],
          networkAccess: false,
          excludeTmpdirEnvVar: false,
          excludeSlashTmp: false,
        },
      });
      // An unpriced model reports its tokens but no invented cost.
      expect(second.usage).toEqual({
        inputTokens: 1000,
        cachedInputTokens: 200,
        outputTokens: 150,
        reasoningTokens: 50,
      });
      expect(second.costUsd).toBeUndefined();
    } finally {
      await session.stop();
    }
  });

  it('a posture-forbidden approval is declined by neo with a notice, never shown as clarify', async () => {
    const run = await fakeRun('codex', 'ask-always');
    const { session, reader } = await run.start({ posture: 'plan' });
    try {
      const events = await reader.untilType('turn_complete');
      expect(kinds(events)).toEqual([
        'started',
        'reasoning',
        'text',
        'tool_use',
        'gate_decision',
        'error:TRANSPORT_POSTURE_DENIED',
        'tool_result',
        'text',
        'turn_complete',
      ]);
      expect(lastOf(events, 'gate_decision')).toMatchObject({ allow: false, posture: 'plan', toolName: 'fileChange' });
      expect(lastOf(events, 'error')).toMatchObject({
        transient: true,
        message: expect.stringMatching(/^denied fileChange: posture plan forbids file edits \(fileChange on /),
      });
      expect((run.received() as Msg[]).find((m) => m.method === undefined && 'result' in m)?.result).toEqual({
        decision: 'decline',
      });
    } finally {
      await session.stop();
    }
  });

  it('the asks neo refuses by rule (extra sandbox permissions, an MCP elicitation) are recorded like any answer', async () => {
    const run = await fakeRun('codex', 'extra-asks');
    const { session, reader } = await run.start({ posture: 'full' });
    try {
      const events = await reader.untilType('turn_complete');
      const decisions = events.filter((e) => e.type === 'gate_decision');
      expect(decisions).toEqual([
        expect.objectContaining({
          toolName: 'item/permissions/requestApproval',
          allow: false,
          posture: 'full',
          reason: 'neo grants no extra sandbox permissions (raise the posture instead)',
        }),
        expect.objectContaining({
          toolName: 'mcpServer/elicitation/request',
          allow: false,
          reason: 'neo answers no MCP server elicitation',
        }),
      ]);
      const note = readWireLog(run.log).find((r) => r.dir === 'note') as { extraAnswers?: unknown } | undefined;
      expect(note?.extraAnswers).toEqual([{ permissions: {}, scope: 'turn' }, { action: 'decline' }]);
    } finally {
      await session.stop();
    }
  });

  it('answers server requests it does not know with a JSON-RPC method-not-found error', async () => {
    const run = await fakeRun('codex', 'unknown-event');
    const { session, reader } = await run.start();
    try {
      await reader.untilType('clarify');
      const note = readWireLog(run.log).find((r) => r.dir === 'note') as { unknownRequestAnswer?: unknown } | undefined;
      expect(note?.unknownRequestAnswer).toEqual({
        error: { code: -32601, message: 'neo does not handle item/brandNew/requestSomething' },
      });
    } finally {
      await session.stop();
    }
  });

  it('resumes with thread/resume; an unknown thread fails the start with Codex own error', async () => {
    const run = await fakeRun('codex');
    await expect(run.start({ resumeSessionId: 'nope' })).rejects.toMatchObject({
      code: 'TRANSPORT_START_FAILED',
      message: 'codex failed to start: no rollout found for thread id nope',
    });
  });

  it('refuses a descriptor whose posture settings are not Codex enum spellings', async () => {
    const run = await fakeRun('codex');
    const descriptor = {
      ...FAKE_DESCRIPTORS.codex,
      postureMap: { default: { settings: { sandbox: 'workspaceWrite', approvalPolicy: 'onRequest' } } },
    };
    await expect(run.start({ descriptor })).rejects.toMatchObject({ code: 'TRANSPORT_POSTURE_UNSUPPORTED' });
    expect(run.argvs()).toEqual([]);
  });
});
