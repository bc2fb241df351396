import { describe, expect, it } from 'vitest';
import { SimulatedClock } from 'xstate';
import { harness, OWNER } from './harness.js';
import type { ReadTurnResult } from '../../../engine/session/index.js';

async function eventTypes(h: Awaited<ReturnType<typeof harness>>, id: string): Promise<string[]> {
  const events = await h.service.store.readEvents(id);
  return events!.map((e) => e.event.type);
}

describe('code session lifecycle', () => {
  it('runs a turn: read-turn maps turn_complete with actions, text and round history; every event persisted in seq order', async () => {
    const h = await harness();
    const start = await h.service.execute({ op: 'start', brief: 'fix it', backend: 'fake' }, OWNER);
    expect(start).toMatchObject({ backend: 'fake', posture: 'acceptEdits', maxPosture: 'acceptEdits', maxRounds: 20 });
    expect(start.sessionId).toMatch(/^cs_[A-Za-z0-9_-]{43}$/);
    const agent = h.transport.last;
    expect(agent.options).toMatchObject({
      sessionId: start.sessionId,
      brief: 'fix it',
      posture: 'acceptEdits',
      cwd: h.cwd,
    });
    agent.emit(
      { type: 'started', externalSessionId: 'ext-1', model: 'fake-model' },
      { type: 'text', text: 'Looking.' },
      { type: 'tool_use', id: 't1', name: 'write', input: { path: 'a.txt' } },
      { type: 'tool_result', id: 't1', output: 'ok', isError: false },
      { type: 'tool_use', id: 't2', name: 'run', input: { command: 'npm test' } },
      { type: 'tool_result', id: 't2', output: 'exit 1', isError: true },
      { type: 'turn_complete', numTurns: 3, costUsd: 0.25, text: 'Done.' },
    );
    const read = await h.service.execute({ op: 'read-turn', sessionId: start.sessionId }, OWNER);
    expect(read).toEqual({
      kind: 'turn_complete',
      text: 'Done.',
      actions: ['write a.txt', 'run npm test (failed)'],
      numTurns: 3,
      costUsd: 0.25,
      roundHistory: {
        entries: [{ kind: 'round', round: 1, text: 'Done.', actions: ['write a.txt', 'run npm test (failed)'] }],
        omittedRounds: 0,
      },
      turnDiff: {
        source: 'tool-events',
        files: [{ path: 'a.txt', status: 'M' }],
        summaryLine: '1 file edited (1 modified; from tool calls, no line counts)',
      },
    });
    const events = await h.service.store.readEvents(start.sessionId);
    expect(events!.map((e) => e.seq)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(events!.map((e) => e.event.type)).toEqual([
      'created',
      'started',
      'text',
      'tool_use',
      'tool_result',
      'tool_use',
      'tool_result',
      'turn_complete',
      'turn_diff',
    ]);
    const record = await h.service.store.get(start.sessionId);
    expect(record).toMatchObject({
      status: 'idle',
      state: 'turnComplete',
      roundsElapsed: 1,
      costUsd: 0.25,
      model: 'fake-model',
      runs: [{ ownerScopeId: 'owner', externalSessionId: 'ext-1' }],
    });
  });

  it("records every answer to an ask: the posture gate's own (by posture) and the driver's (by its scope), with the ask", async () => {
    const h = await harness();
    const { sessionId } = await h.service.execute({ op: 'start', brief: 'b', backend: 'fake' }, OWNER);
    const agent = h.transport.last;
    const edit = { kind: 'edit' as const, toolName: 'Write', paths: ['/elsewhere/a.txt'] };
    const run = { kind: 'execute' as const, toolName: 'Bash', paths: [], command: 'npm test' };
    agent.emit(
      { type: 'started' },
      {
        type: 'gate_decision',
        clarificationId: 'g1',
        toolName: 'Write',
        ask: edit,
        allow: false,
        reason: '/elsewhere/a.txt is outside the workspace /w; change files inside the workspace only',
        posture: 'acceptEdits',
      },
      { type: 'clarify', clarificationId: 'q1', toolName: 'Bash', input: { command: 'npm test' }, ask: run },
    );
    const read = await h.service.execute({ op: 'read-turn', sessionId }, OWNER);
    expect(read).toMatchObject({ kind: 'clarification', clarificationId: 'q1', ask: run });
    await h.service.execute({ op: 'answer', sessionId, clarificationId: 'q1', allow: true, reason: 'listed' }, OWNER);
    const answers = (await h.service.store.readEvents(sessionId))!
      .map((e) => e.event)
      .filter((e) => e.type === 'clarification');
    expect(answers).toEqual([
      {
        type: 'clarification',
        clarificationId: 'g1',
        toolName: 'Write',
        decision: {
          allow: false,
          reason: '/elsewhere/a.txt is outside the workspace /w; change files inside the workspace only',
        },
        by: 'posture',
        posture: 'acceptEdits',
        ask: edit,
      },
      {
        type: 'clarification',
        clarificationId: 'q1',
        toolName: 'Bash',
        decision: { allow: true, reason: 'listed' },
        by: OWNER.scope,
        ask: run,
      },
    ]);
  });

  it('an ask the CLI withdraws while the driver holds it is recorded as answered by the cli and no longer awaits an answer', async () => {
    const h = await harness();
    const { sessionId } = await h.service.execute({ op: 'start', brief: 'b', backend: 'fake' }, OWNER);
    const agent = h.transport.last;
    const run = { kind: 'execute' as const, toolName: 'Bash', paths: [], command: 'npm test' };
    agent.emit(
      { type: 'started' },
      { type: 'clarify', clarificationId: 'q1', toolName: 'Bash', input: { command: 'npm test' }, ask: run },
    );
    expect(await h.service.execute({ op: 'read-turn', sessionId }, OWNER)).toMatchObject({ clarificationId: 'q1' });
    agent.emit({
      type: 'gate_decision',
      clarificationId: 'q1',
      toolName: 'Bash',
      ask: run,
      allow: false,
      reason: 'withdrawn',
      posture: 'acceptEdits',
      by: 'cli',
    });
    await expect.poll(() => h.service.registry.find(sessionId)!.state).toBe('running');
    await expect(
      h.service.execute({ op: 'answer', sessionId, clarificationId: 'q1', allow: true }, OWNER),
    ).rejects.toMatchObject({ code: 'SESSION_UNKNOWN_CLARIFICATION' });
    expect(agent.answers).toEqual([]);
    const answers = (await h.service.store.readEvents(sessionId))!
      .map((e) => e.event)
      .filter((e) => e.type === 'clarification');
    expect(answers).toEqual([
      {
        type: 'clarification',
        clarificationId: 'q1',
        toolName: 'Bash',
        decision: { allow: false, reason: 'withdrawn' },
        by: 'cli',
        ask: run,
      },
    ]);
  });

  it('returns a clarification early while the agent stays blocked; answer resolves it by id', async () => {
    const h = await harness();
    const { sessionId } = await h.service.execute({ op: 'start', brief: 'b', backend: 'fake' }, OWNER);
    const agent = h.transport.last;
    agent.emit(
      { type: 'started' },
      { type: 'clarify', clarificationId: 'q1', toolName: 'Bash', input: { command: 'rm -rf build' } },
    );
    const read = await h.service.execute({ op: 'read-turn', sessionId }, OWNER);
    expect(read).toEqual({
      kind: 'clarification',
      clarificationId: 'q1',
      toolName: 'Bash',
      input: { command: 'rm -rf build' },
    });
    expect(agent.answers).toEqual([]);
    // Reading again before answering returns the same question (the tool call is still blocked).
    expect(await h.service.execute({ op: 'read-turn', sessionId }, OWNER)).toEqual(read);
    expect(h.service.registry.find(sessionId)!.state).toBe('awaitingAnswer');
    await expect(
      h.service.execute({ op: 'answer', sessionId, clarificationId: 'nope', allow: true }, OWNER),
    ).rejects.toMatchObject({ code: 'SESSION_UNKNOWN_CLARIFICATION' });
    const answered = await h.service.execute({ op: 'answer', sessionId, clarificationId: 'q1', allow: true }, OWNER);
    expect(answered).toEqual({ ok: true, clarification: { clarificationId: 'q1', toolName: 'Bash', allow: true } });
    expect(agent.answers).toEqual([{ clarificationId: 'q1', allow: true }]);
    expect(h.service.registry.find(sessionId)!.state).toBe('running');
    agent.emit({ type: 'turn_complete' });
    const next = (await h.service.execute({ op: 'read-turn', sessionId }, OWNER)) as Extract<
      ReadTurnResult,
      { kind: 'turn_complete' }
    >;
    expect(next.kind).toBe('turn_complete');
    expect(next.roundHistory.entries[0]).toEqual({
      kind: 'clarification',
      round: 1,
      clarificationId: 'q1',
      toolName: 'Bash',
      allow: true,
      pinned: true,
    });
    expect(h.metrics.count('code_session_clarification_answers_total', { allow: 'true' })).toBe(1);
  });

  it('carries a deny reason into the next turn as guidance and pins it in the round history for good', async () => {
    const h = await harness();
    const { sessionId } = await h.service.execute({ op: 'start', brief: 'b', backend: 'fake' }, OWNER);
    const agent = h.transport.last;
    agent.onGuidance = (_text, a) => a.emit({ type: 'text', text: 'ok' }, { type: 'turn_complete' });
    agent.emit({ type: 'clarify', clarificationId: 'q1', toolName: 'WebFetch', input: { url: 'https://x' } });
    await h.service.execute({ op: 'read-turn', sessionId }, OWNER);
    await h.service.execute(
      { op: 'answer', sessionId, clarificationId: 'q1', allow: false, reason: 'no network in this repo' },
      OWNER,
    );
    expect(agent.answers).toEqual([{ clarificationId: 'q1', allow: false, reason: 'no network in this repo' }]);
    agent.emit({ type: 'turn_complete' });
    await h.service.execute({ op: 'read-turn', sessionId }, OWNER);
    await h.service.execute({ op: 'guide', sessionId, text: 'use the vendored copy' }, OWNER);
    expect(agent.guidance).toEqual([
      { text: 'Your request to use WebFetch was denied: no network in this repo\n\nuse the vendored copy' },
    ]);
    let last: ReadTurnResult | undefined;
    for (let round = 0; round < 10; round++) {
      last = await h.service.execute({ op: 'read-turn', sessionId }, OWNER);
      await h.service.execute({ op: 'guide', sessionId, text: `round ${round}` }, OWNER);
    }
    const history = (last as Extract<ReadTurnResult, { kind: 'turn_complete' }>).roundHistory;
    expect(history.entries.filter((e) => e.kind === 'clarification')).toEqual([
      {
        kind: 'clarification',
        round: 1,
        clarificationId: 'q1',
        toolName: 'WebFetch',
        allow: false,
        reason: 'no network in this repo',
        pinned: true,
      },
    ]);
    expect(history.entries.filter((e) => e.kind === 'round')).toHaveLength(6);
    // 11 rounds done at that read: the last 6 kept, 5 omitted, the pinned answer still there.
    expect(history.omittedRounds).toBe(5);
    const events = (await h.service.store.readEvents(sessionId))!.map((e) => e.event);
    expect(events.filter((e) => e.type === 'guidance').slice(0, 2)).toEqual([
      { type: 'guidance', source: 'deny', text: 'Your request to use WebFetch was denied: no network in this repo' },
      { type: 'guidance', source: 'driver', text: 'use the vendored copy' },
    ]);
    expect(events.find((e) => e.type === 'clarification')).toEqual({
      type: 'clarification',
      clarificationId: 'q1',
      toolName: 'WebFetch',
      decision: { allow: false, reason: 'no network in this repo' },
      by: OWNER.scope,
    });
  });

  it('pins injected user guidance in the round history', async () => {
    const h = await harness();
    const { sessionId } = await h.service.execute({ op: 'start', brief: 'b', backend: 'fake' }, OWNER);
    const agent = h.transport.last;
    agent.onGuidance = (_t, a) => a.emit({ type: 'turn_complete' });
    agent.emit({ type: 'turn_complete' });
    await h.service.execute({ op: 'read-turn', sessionId }, OWNER);
    await h.service.injectUserGuidance(sessionId, 'please also update the changelog');
    expect(agent.guidance).toEqual([{ text: 'please also update the changelog' }]);
    for (let i = 0; i < 8; i++) {
      await h.service.execute({ op: 'read-turn', sessionId }, OWNER);
      await h.service.execute({ op: 'guide', sessionId, text: 'more' }, OWNER);
    }
    const read = (await h.service.execute({ op: 'read-turn', sessionId }, OWNER)) as Extract<
      ReadTurnResult,
      { kind: 'turn_complete' }
    >;
    expect(read.roundHistory.entries.filter((e) => e.kind === 'user_guidance')).toEqual([
      { kind: 'user_guidance', round: 2, text: 'please also update the changelog', pinned: true },
    ]);
    await expect(h.service.injectUserGuidance('cs_unknown', 'x')).rejects.toMatchObject({ code: 'SESSION_NOT_FOUND' });
  });

  it('moves to stalled after the idle timeout, reports it as an error, never a success', async () => {
    const clock = new SimulatedClock();
    const h = await harness({ clock, idleTimeoutMs: 60_000 });
    const { sessionId } = await h.service.execute({ op: 'start', brief: 'b', backend: 'fake' }, OWNER);
    const agent = h.transport.last;
    agent.emit({ type: 'started' });
    await waitFor(() => h.service.registry.find(sessionId)!.state === 'running');
    clock.increment(30_000);
    agent.emit({ type: 'text', text: 'still here' });
    await waitFor(async () => (await eventTypes(h, sessionId)).includes('text'));
    clock.increment(59_000);
    expect(h.service.registry.find(sessionId)!.state).toBe('running');
    clock.increment(2_000);
    expect(h.service.registry.find(sessionId)!.state).toBe('stalled');
    const read = await h.service.execute({ op: 'read-turn', sessionId }, OWNER);
    expect(read).toEqual({ kind: 'error', message: 'stalled: no agent event for 60s', stalled: true });
    expect(await eventTypes(h, sessionId)).toEqual(['created', 'started', 'text', 'stalled']);
    expect((await h.service.store.get(sessionId))!.state).toBe('stalled');
    // The agent coming back recovers the session.
    agent.emit({ type: 'turn_complete' });
    expect((await h.service.execute({ op: 'read-turn', sessionId }, OWNER)).kind).toBe('turn_complete');
  });

  it('does not stall while waiting on the driver', async () => {
    const clock = new SimulatedClock();
    const h = await harness({ clock, idleTimeoutMs: 1_000 });
    const { sessionId } = await h.service.execute({ op: 'start', brief: 'b', backend: 'fake' }, OWNER);
    h.transport.last.emit({ type: 'started' }, { type: 'turn_complete' });
    await h.service.execute({ op: 'read-turn', sessionId }, OWNER);
    clock.increment(10_000);
    expect(h.service.registry.find(sessionId)!.state).toBe('turnComplete');
  });

  it('stops cleanly at maxRounds and reports max_rounds, not a failure', async () => {
    const h = await harness();
    const { sessionId, maxRounds } = await h.service.execute(
      { op: 'start', brief: 'b', backend: 'fake', maxRounds: 2 },
      OWNER,
    );
    expect(maxRounds).toBe(2);
    const agent = h.transport.last;
    agent.onGuidance = (_t, a) => a.emit({ type: 'text', text: 'second' }, { type: 'turn_complete' });
    agent.emit({ type: 'turn_complete', text: 'first' });
    expect((await h.service.execute({ op: 'read-turn', sessionId }, OWNER)).kind).toBe('turn_complete');
    await h.service.execute({ op: 'guide', sessionId, text: 'go on' }, OWNER);
    const capped = await h.service.execute({ op: 'read-turn', sessionId }, OWNER);
    expect(capped).toMatchObject({ kind: 'max_rounds', ok: true, text: 'second', rounds: 2 });
    expect(await h.service.execute({ op: 'read-turn', sessionId }, OWNER)).toMatchObject({
      kind: 'max_rounds',
      rounds: 2,
    });
    expect(agent.stops).toBeGreaterThanOrEqual(1);
    await waitFor(async () => (await h.service.store.get(sessionId))!.state === 'maxRounds');
    expect(await h.service.store.get(sessionId)).toMatchObject({ status: 'ended', roundsElapsed: 2 });
    await expect(h.service.execute({ op: 'guide', sessionId, text: 'more' }, OWNER)).rejects.toMatchObject({
      code: 'SESSION_NOT_ACTIVE',
    });
  });

  it('buffers terminal events that arrive before registration and flushes them in order', async () => {
    const h = await harness();
    h.transport.onStart = (agent) =>
      agent.emit(
        { type: 'started' },
        { type: 'text', text: 'all done already' },
        { type: 'ended', ok: true, text: 'finished' },
      );
    const { sessionId } = await h.service.execute({ op: 'start', brief: 'b', backend: 'fake' }, OWNER);
    const read = await h.service.execute({ op: 'read-turn', sessionId }, OWNER);
    expect(read).toMatchObject({ kind: 'ended', ok: true, text: 'finished' });
    expect(await eventTypes(h, sessionId)).toEqual(['created', 'started', 'text', 'ended', 'turn_diff']);
    expect(await h.service.store.get(sessionId)).toMatchObject({ status: 'ended', state: 'ended' });
  });

  it('reports a fatal error and a stream that ends without `ended` as error kinds', async () => {
    const h = await harness();
    const a = await h.service.execute({ op: 'start', brief: 'b', backend: 'fake' }, OWNER);
    h.transport.last.emit({ type: 'error', message: 'boom', fatal: true });
    expect(await h.service.execute({ op: 'read-turn', sessionId: a.sessionId }, OWNER)).toMatchObject({
      kind: 'error',
      message: 'boom',
    });
    expect(await h.service.store.get(a.sessionId)).toMatchObject({ status: 'failed' });
    const b = await h.service.execute({ op: 'start', brief: 'b', backend: 'fake' }, OWNER);
    h.transport.last.channel.end();
    expect(await h.service.execute({ op: 'read-turn', sessionId: b.sessionId }, OWNER)).toMatchObject({
      kind: 'error',
      message: 'the agent event stream ended without an ended event',
    });
  });

  it('treats a non-fatal error as a failed turn: the session takes guidance for another', async () => {
    const h = await harness();
    const { sessionId } = await h.service.execute({ op: 'start', brief: 'b', backend: 'fake' }, OWNER);
    const agent = h.transport.last;
    agent.onGuidance = (_t, a) => a.emit({ type: 'turn_complete', text: 'recovered' });
    agent.emit({ type: 'error', message: 'rate limited', transient: true }, { type: 'error', message: 'tool crashed' });
    expect(await h.service.execute({ op: 'read-turn', sessionId }, OWNER)).toMatchObject({
      kind: 'error',
      message: 'tool crashed',
    });
    await h.service.execute({ op: 'guide', sessionId, text: 'try again' }, OWNER);
    expect(await h.service.execute({ op: 'read-turn', sessionId }, OWNER)).toMatchObject({
      kind: 'turn_complete',
      text: 'recovered',
    });
  });

  it('interrupts the turn: pending clarifications are dropped and the agent is told', async () => {
    const h = await harness();
    const { sessionId } = await h.service.execute({ op: 'start', brief: 'b', backend: 'fake' }, OWNER);
    const agent = h.transport.last;
    agent.onInterrupt = (a) => a.emit({ type: 'turn_complete', interrupted: true });
    agent.emit({ type: 'clarify', clarificationId: 'q1', toolName: 'Bash', input: {} });
    await h.service.execute({ op: 'read-turn', sessionId }, OWNER);
    expect(await h.service.execute({ op: 'interrupt', sessionId }, OWNER)).toEqual({ ok: true });
    expect(agent.interrupts).toBe(1);
    expect((await h.service.execute({ op: 'read-turn', sessionId }, OWNER)).kind).toBe('turn_complete');
    await expect(
      h.service.execute({ op: 'answer', sessionId, clarificationId: 'q1', allow: true }, OWNER),
    ).rejects.toMatchObject({ code: 'SESSION_UNKNOWN_CLARIFICATION' });
    expect(await eventTypes(h, sessionId)).toContain('interrupt');
  });

  it('makes stop idempotent for its own sessions and a typed error for unknown or foreign ids', async () => {
    const h = await harness();
    const { sessionId } = await h.service.execute({ op: 'start', brief: 'b', backend: 'fake' }, OWNER);
    await expect(h.service.execute({ op: 'stop', sessionId }, { scope: 'someone-else' })).rejects.toMatchObject({
      code: 'SESSION_NOT_FOUND',
    });
    await expect(h.service.execute({ op: 'read-turn', sessionId }, { scope: 'someone-else' })).rejects.toMatchObject({
      code: 'SESSION_NOT_FOUND',
    });
    expect(await h.service.execute({ op: 'stop', sessionId, outcome: 'partial', note: 'half done' }, OWNER)).toEqual({
      ok: true,
      alreadyStopped: false,
    });
    expect(await h.service.execute({ op: 'stop', sessionId }, OWNER)).toEqual({ ok: true, alreadyStopped: true });
    await expect(
      h.service.execute({ op: 'stop', sessionId: 'cs_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA' }, OWNER),
    ).rejects.toMatchObject({ code: 'SESSION_NOT_FOUND' });
    await expect(h.service.execute({ op: 'read-turn', sessionId }, OWNER)).rejects.toMatchObject({
      code: 'SESSION_RELEASED',
    });
    expect(h.transport.last.stops).toBeGreaterThanOrEqual(1);
    const record = await h.service.store.get(sessionId);
    expect(record).toMatchObject({ status: 'ended', state: 'released', outcome: 'partial', note: 'half done' });
    const events = (await h.service.store.readEvents(sessionId))!;
    expect(events.at(-1)!.event).toEqual({
      type: 'released',
      reason: 'explicit',
      outcome: 'partial',
      note: 'half done',
    });
    expect(h.metrics.count('code_session_released_total', { reason: 'explicit' })).toBe(1);
  });

  it('keeps `released` the last event: agent events after release are not written', async () => {
    const h = await harness();
    const { sessionId } = await h.service.execute({ op: 'start', brief: 'b', backend: 'fake' }, OWNER);
    const agent = h.transport.last;
    await h.service.execute({ op: 'stop', sessionId }, OWNER);
    agent.channel.push({ type: 'text', text: 'late' });
    const types = await eventTypes(h, sessionId);
    expect(types.at(-1)).toBe('released');
    expect(types).not.toContain('text');
  });

  it('answers a read-turn that is waiting when the session is stopped', async () => {
    const h = await harness();
    const { sessionId } = await h.service.execute({ op: 'start', brief: 'b', backend: 'fake' }, OWNER);
    const waiting = h.service.execute({ op: 'read-turn', sessionId }, OWNER);
    await h.service.execute({ op: 'stop', sessionId }, OWNER);
    expect(await waiting).toEqual({ kind: 'ended', ok: false, text: 'the session was released' });
  });

  it('sweeps every session a scope opened and clears its constraints', async () => {
    const h = await harness();
    h.service.setScopeConstraints('persona-1', { maxRounds: 3 });
    const a = await h.service.execute({ op: 'start', brief: 'a', backend: 'fake' }, { scope: 'persona-1' });
    const b = await h.service.execute({ op: 'start', brief: 'b', backend: 'fake' }, { scope: 'persona-1' });
    const c = await h.service.execute({ op: 'start', brief: 'c', backend: 'fake' }, OWNER);
    expect(a.maxRounds).toBe(3);
    await h.service.releaseAllOwnedBy('persona-1');
    expect(h.service.liveSessionIds()).toEqual([c.sessionId]);
    expect((await h.service.store.readEvents(b.sessionId))!.at(-1)!.event).toEqual({
      type: 'released',
      reason: 'sweep',
    });
    const d = await h.service.execute({ op: 'start', brief: 'd', backend: 'fake' }, { scope: 'persona-1' });
    expect(d.maxRounds).toBe(20);
  });

  it('fans every event out to listeners with its seq; a throwing listener is isolated', async () => {
    const h = await harness();
    const seen: Array<[string, number, string]> = [];
    h.service.onSessionEvent(() => {
      throw new Error('bad listener');
    });
    const off = h.service.onSessionEvent((e) => seen.push([e.sessionId, e.seq, e.event.type]));
    const { sessionId } = await h.service.execute({ op: 'start', brief: 'b', backend: 'fake' }, OWNER);
    h.transport.last.emit({ type: 'text', text: 'hi' }, { type: 'turn_complete' });
    await h.service.execute({ op: 'read-turn', sessionId }, OWNER);
    off();
    expect(seen).toEqual([
      [sessionId, 1, 'created'],
      [sessionId, 2, 'text'],
      [sessionId, 3, 'turn_complete'],
      [sessionId, 4, 'turn_diff'],
    ]);
    expect(h.log.warnings.filter((w) => w.event === 'code_session_listener_failed')).toHaveLength(4);
  });
});

async function waitFor(check: () => boolean | Promise<boolean>): Promise<void> {
  for (let i = 0; i < 500; i++) {
    if (await check()) return;
    await new Promise((resolve) => setImmediate(resolve));
  }
  throw new Error('condition never held');
}
