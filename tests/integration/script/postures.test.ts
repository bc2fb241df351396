import { readdir } from 'node:fs/promises';
import { beforeEach, describe, expect, test } from 'vitest';
import type { Posture } from '../../../engine/definitions/index.js';
import type { AgentEvent, AgentSession } from '../../../engine/transports/index.js';
import { startScript, type EventReader } from '../../helpers/script.js';
import { tempDir } from '../../helpers/temp.js';

beforeEach(async () => {
  process.env.NEO_HOME = await tempDir('neo-home-');
});

/** A write, a command that leaves a marker file, and an ask: one of each thing a posture gates. */
const GATED = {
  turns: [
    [
      { write: { path: 'written.txt', content: 'w\n' } },
      { run: { command: ['touch', 'ran.txt'] } },
      {
        ask: {
          toolName: 'mcp__deploy__run',
          input: { environment: 'staging' },
          onAllow: [{ say: 'fetched' }],
          onDeny: [{ say: 'went without' }],
        },
      },
    ],
  ],
};

/** Plays the turn, allowing every clarification, and returns the events plus the clarified tools. */
async function playAllowingAll(
  session: AgentSession,
  reader: EventReader,
): Promise<{ events: AgentEvent[]; asked: string[] }> {
  const asked: string[] = [];
  const events: AgentEvent[] = [];
  for (;;) {
    const event = await reader.next();
    if (event === undefined) throw new Error('stream ended early');
    events.push(event);
    if (event.type === 'clarify') {
      asked.push(event.toolName);
      await session.answer(event.clarificationId, { allow: true });
    }
    if (event.type === 'turn_complete') return { events, asked };
  }
}

const resultsOf = (events: readonly AgentEvent[]) =>
  events.flatMap((e) => (e.type === 'tool_result' ? [`${e.id} ${e.isError ? 'error' : 'ok'}: ${e.output}`] : []));

describe('postures decide what asks, what runs and what is refused', () => {
  const expected: Record<Posture, { asked: string[]; files: string[]; results: string[]; text: string }> = {
    plan: {
      asked: [],
      files: [],
      results: [
        't1.0 error: denied: posture plan forbids file edits (write on written.txt)',
        't1.1 error: denied: posture plan forbids running commands (`touch ran.txt`)',
        't1.2 error: denied: posture plan forbids running commands (mcp__deploy__run)',
      ],
      text: 'went without',
    },
    default: {
      asked: ['write', 'run', 'mcp__deploy__run'],
      files: ['ran.txt', 'written.txt'],
      results: ['t1.0 ok: wrote written.txt (2 bytes)', 't1.1 ok: [exit code 0]', 't1.2 ok: allowed'],
      text: 'fetched',
    },
    acceptEdits: {
      asked: ['run', 'mcp__deploy__run'],
      files: ['ran.txt', 'written.txt'],
      results: ['t1.0 ok: wrote written.txt (2 bytes)', 't1.1 ok: [exit code 0]', 't1.2 ok: allowed'],
      text: 'fetched',
    },
    full: {
      asked: [],
      files: ['ran.txt', 'written.txt'],
      results: ['t1.0 ok: wrote written.txt (2 bytes)', 't1.1 ok: [exit code 0]', 't1.2 ok: allowed'],
      text: 'fetched',
    },
  };
  for (const [posture, want] of Object.entries(expected) as Array<[Posture, (typeof expected)[Posture]]>) {
    test(posture, async () => {
      const cwd = await tempDir();
      const { session, reader } = await startScript({ cwd, posture, script: GATED });
      const { events, asked } = await playAllowingAll(session, reader);
      await session.stop();
      expect(asked).toEqual(want.asked);
      expect(resultsOf(events)).toEqual(want.results);
      expect((await readdir(cwd)).sort()).toEqual(want.files);
      expect(events.at(-1)).toEqual({ type: 'turn_complete', numTurns: 1, text: want.text });
    });
  }

  test('in default, the clarify follows its tool_use and carries the same tool name and input', async () => {
    const cwd = await tempDir();
    const { session, reader } = await startScript({ cwd, posture: 'default', script: GATED });
    const events = await reader.until('clarify');
    expect(events.slice(1)).toEqual([
      { type: 'tool_use', id: 't1.0', name: 'write', input: { path: 'written.txt', content: 'w\n' } },
      {
        type: 'clarify',
        clarificationId: 'clr-t1.0',
        toolName: 'write',
        input: { path: 'written.txt', content: 'w\n' },
        ask: { kind: 'edit', toolName: 'write', paths: ['written.txt'] },
      },
    ]);
    expect(await readdir(cwd)).toEqual([]);
    await session.answer('clr-t1.0', { allow: false, reason: 'not that file' });
    const next = await reader.until('clarify');
    expect(next).toEqual([
      { type: 'tool_result', id: 't1.0', output: 'denied by the user: not that file', isError: true },
      { type: 'tool_use', id: 't1.1', name: 'run', input: { command: ['touch', 'ran.txt'] } },
      {
        type: 'clarify',
        clarificationId: 'clr-t1.1',
        toolName: 'run',
        input: { command: ['touch', 'ran.txt'] },
        ask: { kind: 'execute', toolName: 'run', paths: [], command: 'touch ran.txt', argv: ['touch', 'ran.txt'] },
      },
    ]);
    await session.answer('clr-t1.1', { allow: false });
    expect((await reader.until('tool_result')).at(-1)).toEqual({
      type: 'tool_result',
      id: 't1.1',
      output: 'denied by the user',
      isError: true,
    });
    expect(await readdir(cwd)).toEqual([]);
    await session.stop();
  });

  test('setPosture takes effect for the next action', async () => {
    const cwd = await tempDir();
    const script = {
      turns: [
        [
          { write: { path: 'a.txt', content: 'a' } },
          { write: { path: 'b.txt', content: 'b' } },
          { run: { command: ['touch', 'c.txt'] } },
        ],
      ],
    };
    const { session, reader } = await startScript({ cwd, posture: 'default', script });
    await reader.until('clarify');
    await session.setPosture('acceptEdits');
    await session.answer('clr-t1.0', { allow: true });
    // b.txt goes through without a question; the command still asks under acceptEdits.
    const events = await reader.until('clarify');
    expect(events.map((e) => e.type)).toEqual([
      'tool_result',
      'tool_use',
      'gate_decision',
      'tool_result',
      'tool_use',
      'clarify',
    ]);
    expect(events[2]).toEqual({
      type: 'gate_decision',
      clarificationId: 'gate-t1.1',
      toolName: 'write',
      ask: { kind: 'edit', toolName: 'write', paths: ['b.txt'] },
      allow: true,
      reason: 'posture acceptEdits allows edits inside the workspace (b.txt)',
      posture: 'acceptEdits',
    });
    expect(events.at(-1)).toMatchObject({ clarificationId: 'clr-t1.2', toolName: 'run' });
    await session.setPosture('plan');
    await session.answer('clr-t1.2', { allow: true });
    await reader.until('turn_complete');
    expect((await readdir(cwd)).sort()).toEqual(['a.txt', 'b.txt', 'c.txt']);
    await expect(session.setPosture('yolo' as Posture)).rejects.toMatchObject({ code: 'TRANSPORT_BAD_POSTURE' });
    await session.stop();
  });

  test('the actions of an allowed ask are gated by the live posture', async () => {
    const cwd = await tempDir();
    const script = {
      turns: [
        [
          {
            ask: {
              toolName: 'Deploy',
              input: {},
              onAllow: [{ say: 'going' }, { write: { path: 'x.txt', content: 'x' } }],
            },
          },
        ],
      ],
    };
    const { session, reader } = await startScript({ cwd, posture: 'default', script });
    await reader.until('clarify');
    await session.setPosture('plan');
    await session.answer('clr-t1.0', { allow: true });
    const events = await reader.until('turn_complete');
    expect(resultsOf(events)).toEqual([
      't1.0 ok: allowed',
      't1.2 error: denied: posture plan forbids file edits (write on x.txt)',
    ]);
    expect(await readdir(cwd)).toEqual([]);
    await session.stop();
  });
});
