import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { kinds, lastOf } from '../../contract/event-reader.js';
import { FAKE_DESCRIPTORS, readWireLog } from '../../contract/fake-backends.js';
import { fakeRun } from './harness.js';

type Msg = Record<string, unknown> & { method?: string; params?: Record<string, unknown> };

function sent(run: { received(): Array<Record<string, unknown>> }, method: string): Msg[] {
  return (run.received() as Msg[]).filter((m) => m.method === method);
}

function notes(log: string): Array<Record<string, unknown>> {
  return readWireLog(log).filter((r) => r.dir === 'note') as unknown as Array<Record<string, unknown>>;
}

describe('acp adapter (fake ACP agent)', () => {
  it('initializes as an ACP v1 client with fs methods, opens a session with MCP servers, and sets the posture mode', async () => {
    const run = await fakeRun('acp');
    const { session, reader } = await run.start({
      provision: {
        mcpServers: {
          docs: { command: 'docs-mcp', args: ['--stdio'], env: { TOKEN_REF: 'x' } },
          web: { type: 'http', url: 'http://127.0.0.1:9/mcp' },
          events: { type: 'sse', url: 'http://127.0.0.1:9/sse' },
        },
      },
    });
    try {
      const events = await reader.untilType('clarify');
      expect(kinds(events)).toEqual(['provision', 'started', 'reasoning', 'text', 'tool_use', 'clarify']);
      expect(events[0]).toEqual({
        type: 'provision',
        applied: ['mcp:docs', 'mcp:web'],
        ignored: ['mcp:events'],
        reasons: { 'mcp:events': 'the agent does not advertise sse MCP servers (mcpCapabilities.sse)' },
      });
      expect(run.argvs()[0]).toEqual(['--acp']);
      const messages = run.received() as Msg[];
      expect(messages.every((m) => m.jsonrpc === '2.0')).toBe(true);
      expect(messages.map((m) => m.method).slice(0, 3)).toEqual(['initialize', 'session/new', 'session/prompt']);
      expect(messages[0]?.params).toMatchObject({
        protocolVersion: 1,
        clientCapabilities: { fs: { readTextFile: true, writeTextFile: true }, terminal: false },
      });
      expect(messages[1]?.params).toEqual({
        cwd: run.cwd,
        mcpServers: [
          { name: 'docs', command: 'docs-mcp', args: ['--stdio'], env: [{ name: 'TOKEN_REF', value: 'x' }] },
          { type: 'http', name: 'web', url: 'http://127.0.0.1:9/mcp', headers: [] },
        ],
      });
      // The agent starts in its default mode, which is already the posture's: no set_mode.
      expect(sent(run, 'session/set_mode')).toEqual([]);
      expect(lastOf(events, 'started')).toMatchObject({
        externalSessionId: expect.stringMatching(/^sess_/),
        model: 'fake-small',
      });
    } finally {
      await session.stop();
    }
  });

  it('joins streamed message chunks into one text event', async () => {
    const run = await fakeRun('acp');
    const { session, reader } = await run.start();
    try {
      const events = await reader.untilType('clarify');
      expect(events.filter((e) => e.type === 'text')).toEqual([{ type: 'text', text: 'I will create hello.txt.' }]);
    } finally {
      await session.stop();
    }
  });

  it('answers permission with the allow_once / reject_once option ids, and writes through fs/write_text_file', async () => {
    for (const allow of [true, false]) {
      const run = await fakeRun('acp');
      const { session, reader } = await run.start();
      try {
        const clarify = lastOf(await reader.untilType('clarify'), 'clarify');
        expect(clarify).toMatchObject({
          toolName: 'edit',
          input: { path: join(run.cwd, 'hello.txt'), content: 'hello from fake acp\n' },
        });
        await session.answer(clarify.clarificationId, { allow });
        await reader.untilType('turn_complete');
        const reply = (run.received() as Msg[]).find(
          (m) => m.method === undefined && (m.result as Record<string, unknown> | undefined)?.outcome !== undefined,
        );
        expect(reply?.result).toEqual({ outcome: { outcome: 'selected', optionId: allow ? 'allow' : 'reject' } });
        expect(existsSync(join(run.cwd, 'hello.txt'))).toBe(allow);
        if (allow) expect(notes(run.log).find((n) => 'fsWrite' in n)).toEqual(expect.objectContaining({ fsWrite: {} }));
      } finally {
        await session.stop();
      }
    }
  });

  it('maps postures to the agent mode ids and refuses a mode the agent lacks', async () => {
    const run = await fakeRun('acp');
    const { session, reader } = await run.start({ posture: 'acceptEdits' });
    try {
      const events = await reader.untilType('turn_complete');
      expect(events.some((e) => e.type === 'clarify')).toBe(false);
      expect(readFileSync(join(run.cwd, 'hello.txt'), 'utf8')).toBe('hello from fake acp\n');
      await session.setPosture('plan');
      expect(sent(run, 'session/set_mode').map((m) => m.params?.modeId)).toEqual(['acceptEdits', 'plan']);
    } finally {
      await session.stop();
    }
    const wrong = await fakeRun('acp');
    const descriptor = {
      ...FAKE_DESCRIPTORS.acp,
      postureMap: { ...FAKE_DESCRIPTORS.acp.postureMap, full: { mode: 'turbo' } },
    };
    await expect(wrong.start({ descriptor, posture: 'full' })).rejects.toMatchObject({
      code: 'TRANSPORT_POSTURE_UNSUPPORTED',
      message: expect.stringContaining(
        'mode "turbo" is not among the agent\'s modes (default, acceptEdits, plan, yolo)',
      ),
    });
    expect(wrong.survivors()).toEqual([]);
  });

  it('switches model and effort through config options, or session/set_model for agents with the older models field', async () => {
    const run = await fakeRun('acp');
    const { session, reader } = await run.start({ model: 'fake-large', effort: 'max' });
    try {
      expect(lastOf(await reader.untilType('clarify'), 'clarify').toolName).toBe('edit');
      expect(sent(run, 'session/set_config_option').map((m) => m.params)).toEqual([
        { sessionId: expect.any(String), configId: 'model', value: 'fake-large' },
        { sessionId: expect.any(String), configId: 'thought_level', value: 'high' },
      ]);
      expect(lastOf(reader.seen, 'started').model).toBe('fake-large');
    } finally {
      await session.stop();
    }
    const legacy = await fakeRun('acp', 'legacy-models');
    const started = await legacy.start({ model: 'fake-large' });
    try {
      await started.reader.untilType('clarify');
      expect(sent(legacy, 'session/set_model').map((m) => m.params)).toEqual([
        { sessionId: expect.any(String), modelId: 'fake-large' },
      ]);
    } finally {
      await started.session.stop();
    }
    const unknown = await fakeRun('acp');
    await expect(unknown.start({ model: 'gpt-9' })).rejects.toMatchObject({
      code: 'TRANSPORT_MODEL_UNSUPPORTED',
      message: 'fake-acp failed to start: fake-acp offers no model "gpt-9" (it offers: fake-small, fake-large)',
    });
  });

  it('guidance sent during a prompt waits for it, then runs as the next prompt', async () => {
    const run = await fakeRun('acp');
    const { session, reader } = await run.start();
    try {
      const clarify = lastOf(await reader.untilType('clarify'), 'clarify');
      await session.sendGuidance('then add a README');
      expect(sent(run, 'session/prompt')).toHaveLength(1);
      await session.answer(clarify.clarificationId, { allow: true });
      expect(lastOf(await reader.untilType('turn_complete'), 'turn_complete').text).toBe('Created hello.txt.');
      expect(lastOf(await reader.untilType('turn_complete'), 'turn_complete').text).toBe('Noted: then add a README');
    } finally {
      await session.stop();
    }
  });

  it('interrupt sends session/cancel and answers the pending permission `cancelled`', async () => {
    const run = await fakeRun('acp');
    const { session, reader } = await run.start();
    try {
      const clarify = lastOf(await reader.untilType('clarify'), 'clarify');
      await session.interrupt();
      const done = lastOf(await reader.untilType('turn_complete'), 'turn_complete');
      expect(done.interrupted).toBe(true);
      expect(sent(run, 'session/cancel')).toHaveLength(1);
      // The fake logs the reply when it reads it, which may be just after the prompt's end.
      await expect
        .poll(
          () =>
            (run.received() as Msg[]).find(
              (m) => m.method === undefined && (m.result as Record<string, unknown> | undefined)?.outcome !== undefined,
            )?.result,
        )
        .toEqual({ outcome: { outcome: 'cancelled' } });
      await expect(session.answer(clarify.clarificationId, { allow: true })).rejects.toMatchObject({
        code: 'TRANSPORT_UNKNOWN_CLARIFICATION',
      });
    } finally {
      await session.stop();
    }
  });

  it('a permission ask the interrupt cancels is on record: answered `cancelled` by the interrupt', async () => {
    const run = await fakeRun('acp');
    const { session, reader } = await run.start();
    try {
      const clarify = lastOf(await reader.untilType('clarify'), 'clarify');
      await session.interrupt();
      const events = await reader.untilType('turn_complete');
      const records = events.filter((e) => e.type === 'gate_decision');
      expect(records).toEqual([
        {
          type: 'gate_decision',
          clarificationId: clarify.clarificationId,
          toolName: clarify.toolName,
          ask: clarify.ask,
          allow: false,
          reason: 'cancelled',
          posture: 'default',
          by: 'interrupt',
        },
      ]);
      // A cancel is not the posture refusing anything.
      expect(events.some((e) => e.type === 'error' && e.code === 'TRANSPORT_POSTURE_DENIED')).toBe(false);
    } finally {
      await session.stop();
    }
  });

  it('resume uses session/load and drops the replayed history; agents without load or resume refuse', async () => {
    const run = await fakeRun('acp');
    const first = await run.start({ posture: 'acceptEdits' });
    const id = lastOf(await first.reader.untilType('turn_complete'), 'started').externalSessionId!;
    await first.session.stop();
    const second = await run.start({ resumeSessionId: id, brief: 'continue' });
    try {
      const events = await second.reader.untilType('turn_complete');
      expect(kinds(events)).toEqual(['started', 'text', 'turn_complete']);
      expect(lastOf(events, 'text').text).toBe(`Resumed ${id} after 1 turn(s): continue`);
      expect(sent(run, 'session/load')).toHaveLength(1);
    } finally {
      await second.session.stop();
    }
    const noLoad = await fakeRun('acp', 'no-load');
    await expect(noLoad.start({ resumeSessionId: id })).rejects.toMatchObject({ code: 'TRANSPORT_RESUME_UNSUPPORTED' });
  });

  it('an agent that wants a login fails the start with TRANSPORT_UNAUTHENTICATED and the auth hint', async () => {
    const run = await fakeRun('acp', 'auth-required');
    const descriptor = {
      ...FAKE_DESCRIPTORS.acp,
      command: { ...FAKE_DESCRIPTORS.acp.command!, authHint: 'run `fake-acp login`' },
    };
    await expect(run.start({ descriptor })).rejects.toMatchObject({
      code: 'TRANSPORT_UNAUTHENTICATED',
      hint: 'run `fake-acp login`',
      message: expect.stringContaining('fake-acp needs a login: Authentication required'),
    });
  });

  it('appended instructions open the first prompt; plan updates become reasoning', async () => {
    const run = await fakeRun('acp', 'plan-update');
    const { session, reader } = await run.start({ appendSystemPrompt: 'Be terse.' });
    try {
      const events = await reader.untilType('clarify');
      expect(events.filter((e) => e.type === 'reasoning').map((e) => (e as { text: string }).text)).toEqual([
        'The user wants a file.',
        'Plan:\n- [in_progress] Write hello.txt',
      ]);
      expect(sent(run, 'session/prompt')[0]?.params?.prompt).toEqual([
        { type: 'text', text: 'Be terse.\n\n---\n\nCreate hello.txt with a greeting.' },
      ]);
    } finally {
      await session.stop();
    }
  });

  it('an agent without modes runs every posture through how neo answers its asks', async () => {
    const run = await fakeRun('acp', 'no-modes');
    const descriptor = { ...FAKE_DESCRIPTORS.acp, postureMap: { plan: {}, default: {}, acceptEdits: {}, full: {} } };
    const { session, reader } = await run.start({ descriptor, posture: 'full' });
    try {
      const events = await reader.untilType('turn_complete');
      expect(events.some((e) => e.type === 'clarify')).toBe(false);
      expect(existsSync(join(run.cwd, 'hello.txt'))).toBe(true);
      expect(sent(run, 'session/set_mode')).toEqual([]);
    } finally {
      await session.stop();
    }
  });
});
