import { readFile, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeEach, describe, expect, test } from 'vitest';
import { livingGroupMembers, waitGroupGone } from '../../../engine/execution/index.js';
import { startScript, types } from '../../helpers/script.js';
import { tempDir } from '../../helpers/temp.js';

beforeEach(async () => {
  process.env.NEO_HOME = await tempDir('neo-home-');
});

/** Waits (without a fixed sleep) until `read` returns something. */
async function waitFor<T>(read: () => Promise<T | undefined>): Promise<T> {
  for (;;) {
    const value = await read();
    if (value !== undefined) return value;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

const readPid = (file: string) => () =>
  readFile(file, 'utf8').then(
    (text) => (text.trim() === '' ? undefined : Number(text.trim())),
    () => undefined,
  );

describe('ask: a clarification with a continuation per answer', () => {
  const script = {
    turns: [
      [
        {
          ask: {
            toolName: 'mcp__specs__fetch',
            input: { url: 'https://example.com/spec' },
            onAllow: [{ say: 'read the spec' }, { write: { path: 'spec.md', content: 'spec\n' } }],
            onDeny: [{ say: 'working from memory' }],
          },
        },
        { say: 'after the ask' },
      ],
    ],
  };

  test('allow plays onAllow; its actions are gated by the posture like any other', async () => {
    const cwd = await tempDir();
    const { session, reader } = await startScript({ cwd, posture: 'default', script });
    const asked = await reader.until('clarify');
    expect(asked.slice(1)).toEqual([
      { type: 'tool_use', id: 't1.0', name: 'mcp__specs__fetch', input: { url: 'https://example.com/spec' } },
      {
        type: 'clarify',
        clarificationId: 'clr-t1.0',
        toolName: 'mcp__specs__fetch',
        input: { url: 'https://example.com/spec' },
        ask: { kind: 'execute', toolName: 'mcp__specs__fetch', paths: [] },
      },
    ]);
    await session.answer('clr-t1.0', { allow: true });
    expect(await reader.until('clarify')).toEqual([
      { type: 'tool_result', id: 't1.0', output: 'allowed', isError: false },
      { type: 'text', text: 'read the spec' },
      { type: 'tool_use', id: 't1.2', name: 'write', input: { path: 'spec.md', content: 'spec\n' } },
      {
        type: 'clarify',
        clarificationId: 'clr-t1.2',
        toolName: 'write',
        input: { path: 'spec.md', content: 'spec\n' },
        ask: { kind: 'edit', toolName: 'write', paths: ['spec.md'] },
      },
    ]);
    await session.answer('clr-t1.2', { allow: true });
    expect(await reader.until('turn_complete')).toEqual([
      { type: 'tool_result', id: 't1.2', output: 'wrote spec.md (5 bytes)', isError: false },
      { type: 'text', text: 'after the ask' },
      { type: 'turn_complete', numTurns: 1, text: 'after the ask' },
    ]);
    expect(await readdir(cwd)).toEqual(['spec.md']);
    await session.stop();
  });

  test('deny plays onDeny and reports the reason', async () => {
    const cwd = await tempDir();
    const { session, reader } = await startScript({ cwd, posture: 'acceptEdits', script });
    await reader.until('clarify');
    await expect(session.answer('clr-t9.9', { allow: true })).rejects.toMatchObject({
      code: 'TRANSPORT_UNKNOWN_CLARIFICATION',
    });
    await session.answer('clr-t1.0', { allow: false, reason: 'no network' });
    expect(await reader.until('turn_complete')).toEqual([
      { type: 'tool_result', id: 't1.0', output: 'denied by the user: no network', isError: true },
      { type: 'text', text: 'working from memory' },
      { type: 'text', text: 'after the ask' },
      { type: 'turn_complete', numTurns: 1, text: 'after the ask' },
    ]);
    expect(await readdir(cwd)).toEqual([]);
    await session.stop();
  });
});

describe('guidance starts the next turn', () => {
  const script = {
    turns: [
      [{ write: { path: 'sum.js', content: 'return total + 1;\n' } }, { say: 'wrote it' }],
      {
        when: { guidanceContains: 'exited 1' },
        actions: [{ edit: { path: 'sum.js', search: 'total + 1', replace: 'total' } }, { say: 'fixed it' }],
      },
      [{ say: 'anything else?' }],
    ],
  };

  test('a failed gate’s guidance leads to the fix in turn 2', async () => {
    const cwd = await tempDir();
    const { session, reader } = await startScript({ cwd, script });
    expect((await reader.until('turn_complete')).at(-1)).toEqual({
      type: 'turn_complete',
      numTurns: 1,
      text: 'wrote it',
    });
    await session.sendGuidance('verify: `npm test` EXITED 1\nexpected 3, got 4');
    expect(types(await reader.until('turn_complete'))).toEqual([
      'tool_use',
      'gate_decision',
      'tool_result',
      'text',
      'turn_complete',
    ]);
    expect(reader.seen.at(-1)).toEqual({ type: 'turn_complete', numTurns: 2, text: 'fixed it' });
    expect(await readFile(join(cwd, 'sum.js'), 'utf8')).toBe('return total;\n');
    await session.sendGuidance('thanks');
    expect(await reader.until('turn_complete')).toEqual([
      { type: 'text', text: 'anything else?' },
      { type: 'turn_complete', numTurns: 3, text: 'anything else?' },
    ]);
    await session.sendGuidance('more?');
    expect(await reader.next()).toEqual({
      type: 'error',
      code: 'TRANSPORT_SCRIPT_EXHAUSTED',
      message: 'the script has no turn left (all 3 played)',
      fatal: false,
    });
    await session.stop();
  });

  test('a turn whose `when` does not match is passed over', async () => {
    const cwd = await tempDir();
    const { session, reader } = await startScript({ cwd, script });
    await reader.until('turn_complete');
    await session.sendGuidance('looks good');
    expect(await reader.until('turn_complete')).toEqual([
      { type: 'text', text: 'anything else?' },
      { type: 'turn_complete', numTurns: 2, text: 'anything else?' },
    ]);
    expect(await readFile(join(cwd, 'sum.js'), 'utf8')).toBe('return total + 1;\n');
    await session.stop();
  });

  test('no matching turn is a non-fatal error; the session waits for better guidance', async () => {
    const cwd = await tempDir();
    const conditional = {
      turns: [[{ say: 'one' }], { when: { guidanceContains: ['FAIL', 'error:'] }, actions: [{ say: 'fixing' }] }],
    };
    const { session, reader } = await startScript({ cwd, script: conditional });
    await reader.until('turn_complete');
    await session.sendGuidance('all fine');
    expect(await reader.next()).toEqual({
      type: 'error',
      code: 'TRANSPORT_SCRIPT_NO_MATCHING_TURN',
      message: 'no remaining turn of the script (turn 2) matches this prompt',
      fatal: false,
    });
    await session.sendGuidance('Error: boom');
    expect(await reader.until('turn_complete')).toEqual([
      { type: 'text', text: 'fixing' },
      { type: 'turn_complete', numTurns: 2, text: 'fixing' },
    ]);
    await session.stop();
  });

  test('guidance sent while a turn runs is queued and starts the next turn when it completes', async () => {
    const cwd = await tempDir();
    const { session, reader } = await startScript({ cwd, posture: 'default', script });
    await reader.until('clarify');
    await session.sendGuidance('npm test exited 1');
    await session.sendGuidance('(second note)');
    await session.answer('clr-t1.0', { allow: true });
    await reader.until('turn_complete');
    // No further guidance needed: the queued texts, joined, matched turn 2.
    await reader.until('clarify');
    await session.answer('clr-t2.0', { allow: true });
    expect((await reader.until('turn_complete')).at(-1)).toEqual({
      type: 'turn_complete',
      numTurns: 2,
      text: 'fixed it',
    });
    await session.stop();
  });
});

describe('interrupt', () => {
  test('ends a hanging turn; the next guidance plays the next turn', async () => {
    const cwd = await tempDir();
    const script = { turns: [[{ say: 'thinking hard' }, { hang: null }, { say: 'never' }], [{ say: 'back' }]] };
    const { session, reader } = await startScript({ cwd, script });
    expect(await reader.next()).toMatchObject({ type: 'started' });
    expect(await reader.next()).toEqual({ type: 'text', text: 'thinking hard' });
    await session.interrupt();
    expect(await reader.next()).toEqual({ type: 'turn_complete', numTurns: 1, interrupted: true });
    await session.interrupt(); // nothing running: a no-op
    await session.sendGuidance('try again');
    expect(await reader.until('turn_complete')).toEqual([
      { type: 'text', text: 'back' },
      { type: 'turn_complete', numTurns: 2, text: 'back' },
    ]);
    await session.stop();
  });

  test('withdraws a pending clarification', async () => {
    const cwd = await tempDir();
    const { session, reader } = await startScript({
      cwd,
      posture: 'default',
      script: { turns: [[{ write: { path: 'a', content: 'a' } }]] },
    });
    await reader.until('clarify');
    await session.interrupt();
    expect((await reader.until('turn_complete')).filter((e) => e.type !== 'gate_decision')).toEqual([
      { type: 'tool_result', id: 't1.0', output: 'interrupted', isError: true },
      { type: 'turn_complete', numTurns: 1, interrupted: true },
    ]);
    await expect(session.answer('clr-t1.0', { allow: true })).rejects.toMatchObject({
      code: 'TRANSPORT_UNKNOWN_CLARIFICATION',
    });
    expect(await readdir(cwd)).toEqual([]);
    await session.stop();
  });

  test('kills a running command and its process group', async () => {
    const cwd = await tempDir();
    const script = { turns: [[{ run: { command: 'echo $$ > pid; sleep 300 & sleep 300' } }, { say: 'never' }]] };
    const { session, reader } = await startScript({ cwd, script });
    await reader.until('tool_use');
    const pgid = await waitFor(readPid(join(cwd, 'pid')));
    expect(livingGroupMembers(pgid).length).toBeGreaterThanOrEqual(2);
    await session.interrupt();
    expect((await reader.until('turn_complete')).filter((e) => e.type !== 'gate_decision')).toEqual([
      { type: 'tool_result', id: 't1.0', output: 'interrupted', isError: true },
      { type: 'turn_complete', numTurns: 1, interrupted: true },
    ]);
    expect(livingGroupMembers(pgid)).toEqual([]);
    await session.stop();
  });
});

describe('stop', () => {
  test('kills a long run’s whole process group, ends the stream, and is idempotent', async () => {
    const cwd = await tempDir();
    const script = { turns: [[{ run: { command: 'echo $$ > pid; sleep 300 & sleep 300' } }]] };
    const { session, reader } = await startScript({ cwd, script });
    await reader.until('tool_use');
    const pgid = await waitFor(readPid(join(cwd, 'pid')));
    expect(livingGroupMembers(pgid).length).toBeGreaterThanOrEqual(2);
    await session.stop();
    expect(livingGroupMembers(pgid)).toEqual([]);
    expect(await waitGroupGone(pgid, 0)).toBe(true);
    await session.stop();
    const rest = await reader.rest();
    expect(rest.every((e) => e.type !== 'turn_complete')).toBe(true);
    await expect(session.sendGuidance('more')).rejects.toMatchObject({ code: 'TRANSPORT_SESSION_ENDED' });
  });

  test('while waiting for guidance ends the stream at once', async () => {
    const cwd = await tempDir();
    const { session, reader } = await startScript({ cwd, script: { turns: [[{ say: 'hi' }]] } });
    await reader.until('turn_complete');
    await session.stop();
    expect(await reader.rest()).toEqual([]);
  });
});

describe('fail and end', () => {
  test('fail ends the turn with an error; the session stays open unless fatal', async () => {
    const cwd = await tempDir();
    const script = {
      turns: [
        [{ say: 'calling the model' }, { fail: { message: 'rate limited', transient: true } }, { say: 'skipped' }],
        [{ fail: { message: 'out of credits', fatal: true } }],
      ],
    };
    const { session, reader } = await startScript({ cwd, script });
    expect((await reader.until('error')).slice(1)).toEqual([
      { type: 'text', text: 'calling the model' },
      { type: 'error', code: 'TRANSPORT_SCRIPT_FAIL', message: 'rate limited', transient: true, fatal: false },
    ]);
    await session.sendGuidance('retry');
    expect(await reader.rest()).toEqual([
      { type: 'error', code: 'TRANSPORT_SCRIPT_FAIL', message: 'out of credits', transient: false, fatal: true },
    ]);
    await expect(session.sendGuidance('again')).rejects.toMatchObject({ code: 'TRANSPORT_SESSION_ENDED' });
    await session.stop();
  });

  test('end closes the session with the turn’s figures; text defaults to the last say', async () => {
    const cwd = await tempDir();
    const script = {
      turns: [
        {
          cost: { usd: 0.25, inputTokens: 900, outputTokens: 120, cachedInputTokens: 400, reasoningTokens: 30 },
          actions: [{ say: 'All tests pass.' }, { end: null }],
        },
      ],
    };
    const { session, reader } = await startScript({ cwd, script });
    expect((await reader.rest()).slice(1)).toEqual([
      { type: 'text', text: 'All tests pass.' },
      {
        type: 'ended',
        ok: true,
        text: 'All tests pass.',
        numTurns: 1,
        costUsd: 0.25,
        usage: { inputTokens: 900, outputTokens: 120, cachedInputTokens: 400, reasoningTokens: 30 },
      },
    ]);
    await session.stop();
  });
});

describe('cost figures', () => {
  test('each turn_complete reports its own turn’s cost and usage, never a running total', async () => {
    const cwd = await tempDir();
    const script = {
      turns: [
        { cost: { usd: 0.0123, inputTokens: 1200, outputTokens: 340 }, actions: [{ say: 'one' }] },
        [{ say: 'two' }],
        { cost: { usd: 0.5 }, actions: [] },
        { cost: { outputTokens: 7 }, actions: [{ end: { ok: false, text: 'gave up' } }] },
      ],
    };
    const { session, reader } = await startScript({ cwd, script });
    const ends = [];
    ends.push((await reader.until('turn_complete')).at(-1));
    for (const text of ['b', 'c']) {
      await session.sendGuidance(text);
      ends.push((await reader.until('turn_complete')).at(-1));
    }
    await session.sendGuidance('d');
    ends.push((await reader.until('ended')).at(-1));
    expect(ends).toEqual([
      {
        type: 'turn_complete',
        numTurns: 1,
        costUsd: 0.0123,
        usage: { inputTokens: 1200, outputTokens: 340 },
        text: 'one',
      },
      { type: 'turn_complete', numTurns: 2, text: 'two' },
      { type: 'turn_complete', numTurns: 3, costUsd: 0.5 },
      { type: 'ended', ok: false, text: 'gave up', numTurns: 4, usage: { outputTokens: 7 } },
    ]);
    expect(await reader.rest()).toEqual([]);
    await session.stop();
  });
});
