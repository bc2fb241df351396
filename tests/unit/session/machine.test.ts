import { describe, expect, it } from 'vitest';
import { createActor, SimulatedClock } from 'xstate';
import { sessionMachine, stateName, statusOf, type SessionMachineInput } from '../../../engine/session/index.js';

function actor(overrides: Partial<SessionMachineInput> = {}) {
  const clock = new SimulatedClock();
  const watch = { lastAt: 0, now: () => clock.now() };
  const a = createActor(sessionMachine, {
    input: {
      posture: 'default',
      maxPosture: 'acceptEdits',
      maxRounds: 3,
      roundsElapsed: 0,
      idleTimeoutMs: 1000,
      watch,
      ...overrides,
    },
    clock,
  });
  a.start();
  const state = () => stateName(a.getSnapshot());
  return { a, clock, watch, state, ctx: () => a.getSnapshot().context };
}

describe('session lifecycle machine', () => {
  it('walks starting → running → awaitingAnswer → running → turnComplete → running', () => {
    const { a, state, ctx } = actor();
    expect(state()).toBe('starting');
    a.send({ type: 'agent.activity' });
    expect(state()).toBe('running');
    a.send({ type: 'agent.clarify', clarificationId: 'q1' });
    a.send({ type: 'agent.clarify', clarificationId: 'q2' });
    expect(state()).toBe('awaitingAnswer');
    a.send({ type: 'op.answer', clarificationId: 'q1' });
    expect([state(), ctx().pending]).toEqual(['awaitingAnswer', ['q2']]);
    a.send({ type: 'op.answer', clarificationId: 'q2' });
    expect(state()).toBe('running');
    a.send({ type: 'agent.turn_complete', costUsd: 0.5 });
    expect([state(), ctx().roundsElapsed, ctx().costUsd]).toEqual(['turnComplete', 1, 0.5]);
    expect(statusOf(state(), ctx())).toBe('idle');
    a.send({ type: 'op.guide' });
    expect(state()).toBe('running');
    expect(statusOf(state(), ctx())).toBe('running');
  });

  it('ignores an answer for an id that is not pending', () => {
    const { a, state, ctx } = actor();
    a.send({ type: 'agent.clarify', clarificationId: 'q1' });
    a.send({ type: 'op.answer', clarificationId: 'other' });
    expect([state(), ctx().pending]).toEqual(['awaitingAnswer', ['q1']]);
  });

  it('guards the ceiling: set_posture above maxPosture changes nothing', () => {
    const { a, ctx } = actor();
    a.send({ type: 'op.set_posture', posture: 'full' });
    expect(ctx().posture).toBe('default');
    a.send({ type: 'op.set_posture', posture: 'acceptEdits' });
    expect(ctx().posture).toBe('acceptEdits');
  });

  it('reaches maxRounds on the turn that spends the budget (counting rounds already elapsed)', () => {
    const { a, state, ctx } = actor({ maxRounds: 3, roundsElapsed: 1 });
    a.send({ type: 'agent.turn_complete' });
    expect(state()).toBe('turnComplete');
    a.send({ type: 'op.guide' });
    a.send({ type: 'agent.turn_complete' });
    expect([state(), ctx().roundsElapsed]).toEqual(['maxRounds', 3]);
    expect(statusOf(state(), ctx())).toBe('ended');
    a.send({ type: 'op.guide' });
    expect(state()).toBe('maxRounds');
    a.send({ type: 'op.release', reason: 'explicit' });
    expect(state()).toBe('released');
    expect(a.getSnapshot().status).toBe('done');
  });

  it('stalls on an idle signal only when the idle time since the last activity has passed, and recovers on activity', () => {
    const { a, clock, watch, state } = actor();
    a.send({ type: 'agent.idle' });
    expect(state()).toBe('starting');
    clock.increment(1000);
    a.send({ type: 'agent.idle' });
    expect(state()).toBe('stalled');
    a.send({ type: 'agent.activity' });
    expect(state()).toBe('running');
    watch.lastAt = clock.now();
    clock.increment(600);
    a.send({ type: 'agent.idle' });
    expect(state()).toBe('running');
    clock.increment(400);
    a.send({ type: 'agent.idle' });
    expect(state()).toBe('stalled');
  });

  it('does not stall while waiting on the driver', () => {
    const { a, clock, state } = actor();
    a.send({ type: 'agent.clarify', clarificationId: 'q' });
    clock.increment(10_000);
    a.send({ type: 'agent.idle' });
    expect(state()).toBe('awaitingAnswer');
    a.send({ type: 'op.answer', clarificationId: 'q' });
    a.send({ type: 'agent.turn_complete' });
    a.send({ type: 'agent.idle' });
    expect(state()).toBe('turnComplete');
  });

  it('ends, fails and releases from any live state; the released status keeps the verdict', () => {
    const ended = actor();
    ended.a.send({ type: 'agent.turn_complete', costUsd: 0.25 });
    ended.a.send({ type: 'agent.ended', ok: false, costUsd: 0.5 });
    expect(ended.ctx().costUsd).toBe(0.75);
    expect([ended.state(), statusOf(ended.state(), ended.ctx())]).toEqual(['ended', 'failed']);
    ended.a.send({ type: 'op.release', reason: 'explicit' });
    expect([ended.state(), statusOf(ended.state(), ended.ctx())]).toEqual(['released', 'failed']);

    const failed = actor();
    failed.a.send({ type: 'agent.clarify', clarificationId: 'q' });
    failed.a.send({ type: 'agent.error', message: 'boom' });
    expect([failed.state(), failed.ctx().error]).toEqual(['failed', 'boom']);

    const live = actor();
    live.a.send({ type: 'agent.activity' });
    live.a.send({ type: 'op.release', reason: 'sweep' });
    expect([live.state(), statusOf(live.state(), live.ctx())]).toEqual(['released', 'ended']);
  });

  it('interrupt while awaiting an answer drops the pending questions', () => {
    const { a, state, ctx } = actor();
    a.send({ type: 'agent.clarify', clarificationId: 'q' });
    a.send({ type: 'op.interrupt' });
    expect([state(), ctx().pending]).toEqual(['running', []]);
  });

  it('round-trips a persisted snapshot through JSON', () => {
    const { a } = actor();
    a.send({ type: 'agent.activity' });
    a.send({ type: 'agent.turn_complete' });
    const persisted = JSON.parse(JSON.stringify(a.getPersistedSnapshot()));
    const restored = createActor(sessionMachine, { snapshot: persisted, input: a.getSnapshot().context });
    expect(stateName(restored.getSnapshot())).toBe('turnComplete');
    expect(restored.getSnapshot().context.roundsElapsed).toBe(1);
  });
});
