import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { kinds, lastOf } from '../../contract/event-reader.js';
import { FAKE_DESCRIPTORS } from '../../contract/fake-backends.js';
import { fakeRun } from './harness.js';

const isRoot = process.getuid?.() === 0;

function controlRequests(received: Array<Record<string, unknown>>): Array<Record<string, unknown>> {
  return received.filter((m) => m.type === 'control_request').map((m) => m.request as Record<string, unknown>);
}

function controlResponses(received: Array<Record<string, unknown>>): Array<Record<string, unknown>> {
  return received.filter((m) => m.type === 'control_response').map((m) => m.response as Record<string, unknown>);
}

describe('claude-code adapter (fake claude)', () => {
  it('launches bidirectional stream-json with the stdio permission prompt and every start option as a flag', async () => {
    const run = await fakeRun('claude-code');
    const { session, reader } = await run.start({
      model: 'sonnet',
      resumeSessionId: undefined,
      allowedTools: ['Read', 'Bash(git *)'],
      disallowedTools: ['WebFetch'],
      appendSystemPrompt: 'Be terse.',
      provision: {
        instructions: 'Follow the house style.',
        mcpServers: { docs: { command: 'docs-mcp', args: ['--stdio'] } },
        skillDirs: ['/tmp/skills/x'],
      },
    });
    try {
      const events = await reader.untilType('clarify');
      expect(kinds(events)).toEqual(['provision', 'started', 'reasoning', 'text', 'tool_use', 'clarify']);
      expect(events[0]).toEqual({
        type: 'provision',
        applied: ['instructions', 'mcp:docs'],
        ignored: ['skill:/tmp/skills/x'],
        reasons: { 'skill:/tmp/skills/x': 'Claude Code takes skills only in a plugin folder, and this plan has none' },
      });
      expect(run.argvs()[0]).toEqual([
        '-p',
        '--input-format',
        'stream-json',
        '--output-format',
        'stream-json',
        '--verbose',
        '--permission-prompt-tool',
        'stdio',
        '--settings',
        '{"permissions":{"ask":["Bash"]}}',
        '--setting-sources',
        'user',
        '--add-dir',
        run.cwd,
        '--permission-mode',
        'default',
        '--model',
        'sonnet',
        '--allowedTools',
        'Read,Bash(git *)',
        '--disallowedTools',
        'WebFetch',
        '--append-system-prompt',
        'Be terse.\n\nFollow the house style.',
        '--mcp-config',
        '{"mcpServers":{"docs":{"command":"docs-mcp","args":["--stdio"]}}}',
      ]);
      const first = run.received();
      expect(first[0]).toMatchObject({ type: 'control_request', request: { subtype: 'initialize' } });
      expect(first[1]).toEqual({
        type: 'user',
        message: { role: 'user', content: 'Create hello.txt with a greeting.' },
        parent_tool_use_id: null,
        session_id: '',
      });
    } finally {
      await session.stop();
    }
  });

  it('answers can_use_tool allow with the input echoed as updatedInput, and deny with the reason', async () => {
    const run = await fakeRun('claude-code');
    const { session, reader } = await run.start();
    try {
      const clarify = lastOf(await reader.untilType('clarify'), 'clarify');
      await session.answer(clarify.clarificationId, { allow: true });
      await reader.untilType('turn_complete');
      const allow = controlResponses(run.received()).at(-1);
      expect(allow).toEqual({
        subtype: 'success',
        request_id: clarify.clarificationId,
        response: { behavior: 'allow', updatedInput: clarify.input, toolUseID: 'toolu_fake_1' },
      });
    } finally {
      await session.stop();
    }
    const denyRun = await fakeRun('claude-code');
    const denied = await denyRun.start();
    try {
      const clarify = lastOf(await denied.reader.untilType('clarify'), 'clarify');
      await denied.session.answer(clarify.clarificationId, { allow: false, reason: 'Write is out of scope' });
      const rest = await denied.reader.untilType('turn_complete');
      expect(lastOf(rest, 'tool_result')).toMatchObject({ isError: true, output: 'Write is out of scope' });
      expect(controlResponses(denyRun.received()).at(-1)).toEqual({
        subtype: 'success',
        request_id: clarify.clarificationId,
        response: { behavior: 'deny', message: 'Write is out of scope', toolUseID: 'toolu_fake_1' },
      });
    } finally {
      await denied.session.stop();
    }
  });

  it('total_cost_usd is cumulative: each turn reports only its own share', async () => {
    const run = await fakeRun('claude-code');
    const { session, reader } = await run.start({ posture: 'acceptEdits' });
    try {
      const costs: Array<number | undefined> = [
        lastOf(await reader.untilType('turn_complete'), 'turn_complete').costUsd,
      ];
      for (const text of ['two', 'three']) {
        await session.sendGuidance(text);
        costs.push(lastOf(await reader.untilType('turn_complete'), 'turn_complete').costUsd);
      }
      expect(costs).toEqual([0.0125, 0.0125, 0.0125]);
      const results = (await import('../../contract/fake-backends.js'))
        .readWireLog(run.log)
        .filter((r) => r.dir === 'out' && r.message?.type === 'result');
      expect(results.map((r) => r.message?.total_cost_usd)).toEqual([0.0125, 0.025, 0.0375]);
    } finally {
      await session.stop();
    }
  });

  it('posture changes, model switches and effort go over the control protocol', async () => {
    const run = await fakeRun('claude-code');
    const { session, reader } = await run.start({ effort: 'high' });
    try {
      const clarify = lastOf(await reader.untilType('clarify'), 'clarify');
      await session.answer(clarify.clarificationId, { allow: true });
      await reader.untilType('turn_complete');
      await session.setPosture('acceptEdits');
      await session.sendGuidance('next', { model: 'opus', effort: 'low' });
      await reader.untilType('turn_complete');
      expect(controlRequests(run.received()).map((r) => r.subtype)).toEqual([
        'initialize',
        'apply_flag_settings',
        'set_permission_mode',
        'set_model',
        'apply_flag_settings',
      ]);
      const requests = controlRequests(run.received());
      expect(requests[1]).toEqual({ subtype: 'apply_flag_settings', settings: { effortLevel: 'high' } });
      expect(requests[2]).toEqual({ subtype: 'set_permission_mode', mode: 'acceptEdits' });
      expect(requests[3]).toEqual({ subtype: 'set_model', model: 'opus' });
      expect(requests[4]).toEqual({ subtype: 'apply_flag_settings', settings: { effortLevel: 'low' } });
    } finally {
      await session.stop();
    }
  });

  it('effort is refused when the CLI does not advertise it', async () => {
    const run = await fakeRun('claude-code', 'no-effort');
    await expect(run.start({ effort: 'high' })).rejects.toMatchObject({
      code: 'TRANSPORT_EFFORT_UNSUPPORTED',
      message: expect.stringContaining('does not advertise effort high for model default'),
    });
    expect(run.survivors()).toEqual([]);
    const ok = await fakeRun('claude-code', 'no-effort');
    const { session, reader } = await ok.start();
    try {
      await reader.untilType('clarify');
      await expect(session.sendGuidance('x', { effort: 'low' })).rejects.toMatchObject({
        code: 'TRANSPORT_EFFORT_UNSUPPORTED',
      });
    } finally {
      await session.stop();
    }
  });

  it('an ask claude withdraws (control_cancel_request) is on record: answered `withdrawn` by the CLI', async () => {
    const run = await fakeRun('claude-code');
    const { session, reader } = await run.start();
    try {
      const clarify = lastOf(await reader.untilType('clarify'), 'clarify');
      // On an interrupt the CLI withdraws the ask it is waiting on.
      await session.interrupt();
      const events = await reader.untilType('turn_complete');
      expect(events.filter((e) => e.type === 'gate_decision')).toEqual([
        {
          type: 'gate_decision',
          clarificationId: clarify.clarificationId,
          toolName: clarify.toolName,
          ask: clarify.ask,
          allow: false,
          reason: 'withdrawn',
          posture: 'default',
          by: 'cli',
        },
      ]);
      expect(events.some((e) => e.type === 'error' && e.code === 'TRANSPORT_POSTURE_DENIED')).toBe(false);
      await expect(session.answer(clarify.clarificationId, { allow: true })).rejects.toMatchObject({
        code: 'TRANSPORT_UNKNOWN_CLARIFICATION',
      });
    } finally {
      await session.stop();
    }
  });

  it('guidance sent mid-turn is queued by the CLI and runs as its own turn', async () => {
    const run = await fakeRun('claude-code');
    const { session, reader } = await run.start();
    try {
      const clarify = lastOf(await reader.untilType('clarify'), 'clarify');
      await session.sendGuidance('and add a test');
      await session.answer(clarify.clarificationId, { allow: true });
      const first = await reader.untilType('turn_complete');
      expect(lastOf(first, 'turn_complete').text).toBe('Created hello.txt.');
      const second = await reader.untilType('turn_complete');
      expect(kinds(second)).toEqual(['text', 'turn_complete']);
      expect(lastOf(second, 'turn_complete').text).toBe('Noted: and add a test');
    } finally {
      await session.stop();
    }
  });

  it('a failed login (subtype success, is_error true) is a TRANSPORT_UNAUTHENTICATED turn failure with the auth hint', async () => {
    const run = await fakeRun('claude-code', 'not-logged-in');
    const { session, reader } = await run.start();
    try {
      const events = await reader.until((e) => e.type === 'error');
      expect(kinds(events)).toEqual(['started', 'error:TRANSPORT_UNAUTHENTICATED']);
      expect(lastOf(events, 'error')).toMatchObject({
        message:
          'claude-code: it is not authenticated with its model provider: Not logged in · Please run /login (api_error) — check the API key or login the CLI uses (run `claude /login` or set ANTHROPIC_API_KEY)',
      });
      expect(lastOf(events, 'error').fatal).toBeUndefined();
    } finally {
      await session.stop();
    }
  });

  it('an unknown resume id fails the start with the CLI own message', async () => {
    const run = await fakeRun('claude-code');
    await expect(run.start({ resumeSessionId: 'no-such-session' })).rejects.toThrow(
      /exited during startup \(exit code 1\)\nstderr:\nNo conversation found with session ID: no-such-session/,
    );
  });

  it.runIf(isRoot)(
    'posture full as root is refused before launch unless neo confines claude (an IS_SANDBOX of the user’s is not passed on)',
    async () => {
      const run = await fakeRun('claude-code', 'normal', { IS_SANDBOX: '1' });
      await expect(run.start({ posture: 'full' })).rejects.toMatchObject({
        code: 'TRANSPORT_POSTURE_REFUSED',
        message: expect.stringContaining('sandbox: bwrap'),
      });
      expect(run.argvs()).toEqual([]);
      const sandboxed = await fakeRun('claude-code');
      const { session, reader } = await sandboxed.start({
        posture: 'full',
        sessionDir: join(sandboxed.home, 'session'),
        sandbox: {
          kind: 'bwrap',
          binds: [
            { path: sandboxed.cwd, write: true },
            { path: sandboxed.home, write: true },
          ],
          hide: [],
          network: false,
        },
      });
      try {
        const events = await reader.untilType('turn_complete');
        expect(events.some((e) => e.type === 'clarify')).toBe(false);
        expect(sandboxed.argvs()[0]).toContain('bypassPermissions');
        await expect(session.setPosture('plan')).resolves.toBeUndefined();
      } finally {
        await session.stop();
      }
      const plain = await fakeRun('claude-code');
      const started = await plain.start();
      try {
        await started.reader.untilType('clarify');
        await expect(started.session.setPosture('full')).rejects.toMatchObject({ code: 'TRANSPORT_POSTURE_REFUSED' });
      } finally {
        await started.session.stop();
      }
    },
  );

  it('a posture the descriptor does not map is refused', async () => {
    const run = await fakeRun('claude-code');
    const descriptor = { ...FAKE_DESCRIPTORS['claude-code'], postureMap: { default: { mode: 'default' } } };
    await expect(run.start({ descriptor, posture: 'plan' })).rejects.toMatchObject({
      code: 'TRANSPORT_POSTURE_UNSUPPORTED',
      message: 'claude-code cannot express posture plan (its descriptor maps: default)',
    });
  });
});
