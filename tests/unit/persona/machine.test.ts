/**
 * The persona flow statechart with stub actors: which states it walks for each read-turn kind,
 * and the rules no decider can bend (honest verdicts, spent check attempts, bounded restarts,
 * fail-safe denies, aborts).
 */
import { UsageError } from '../../../engine/util/errors.js';
import { createActor, fromPromise, toPromise } from 'xstate';
import { describe, expect, test } from 'vitest';
import {
  personaMachine,
  type Answer,
  type CheckResult,
  type Judgement,
  type PersonaMachineInput,
  type SessionInfo,
  type StartPlan,
  type Verdict,
} from '../../../engine/persona/index.js';
import type { ReadTurnResult } from '../../../engine/session/index.js';

const SESSION: SessionInfo = {
  sessionId: 'cs_x',
  backend: 'script',
  posture: 'default',
  maxPosture: 'acceptEdits',
  maxRounds: 4,
  cwd: '/w',
};
const PLAN: StartPlan = { backend: 'script', brief: 'b', taskTags: [], why: 'test' };
const TC: ReadTurnResult = {
  kind: 'turn_complete',
  actions: [],
  text: 'did it',
  roundHistory: { entries: [], truncated: false } as never,
};
const check = (passed: boolean): CheckResult => ({
  command: 'npm test',
  passed,
  exitCode: passed ? 0 : 1,
  timedOut: false,
  tail: passed ? '' : 'FAIL',
  durationMs: 1,
});

interface Script {
  turns: ReadTurnResult[];
  starts?: Array<Error | undefined>;
  judge?: (n: number) => { judgement: Judgement; check?: CheckResult };
  verify?: { verdict: Verdict; check?: CheckResult };
  decide?: () => Promise<Answer>;
  select?: () => Promise<StartPlan>;
  input?: Partial<PersonaMachineInput>;
  hang?: boolean;
}

function drive(s: Script) {
  const states: string[] = [];
  const ops: string[] = [];
  let turn = 0;
  let judged = 0;
  let start = 0;
  const machine = personaMachine.provide({
    actors: {
      listBackends: fromPromise(async () => []),
      select: fromPromise(async () => (s.select ? s.select() : PLAN)),
      start: fromPromise(async () => {
        const error = s.starts?.[start++];
        if (error !== undefined) throw error;
        ops.push('start');
        return SESSION;
      }),
      read: fromPromise(async () => {
        if (s.hang && turn >= s.turns.length) return new Promise<never>(() => {});
        return s.turns[turn++]!;
      }),
      decide: fromPromise(async () => (s.decide ? s.decide() : { allow: true, reason: 'ok', by: 'test' })),
      answer: fromPromise<void, { answer: Answer }>(async ({ input }) => {
        ops.push(`answer ${input.answer.allow}`);
      }),
      judge: fromPromise(async () => s.judge!(judged++)),
      guide: fromPromise<void, { judgement: { text: string } }>(async ({ input }) => {
        ops.push(`guide ${input.judgement.text}`);
      }),
      verify: fromPromise(async () => s.verify!),
      stop: fromPromise<void, { verdict: Verdict }>(async ({ input }) => {
        ops.push(`stop ${input.verdict.outcome}`);
      }),
    } as never,
  });
  const actor = createActor(machine, {
    input: { hasCheck: true, maxCheckAttempts: 0, maxStartAttempts: 3, requireCheck: true, ...s.input },
  });
  actor.subscribe((snap) => {
    const value = String(snap.value);
    if (states.at(-1) !== value) states.push(value);
  });
  actor.start();
  return { actor, states, ops, done: toPromise(actor) };
}

describe('the persona flow machine', () => {
  test('clarification → decide → answer → read; turn_complete → judge → stop', async () => {
    const r = drive({
      turns: [{ kind: 'clarification', clarificationId: 'c1', toolName: 'Edit', input: {} }, TC],
      judge: () => ({ judgement: { kind: 'stop', outcome: 'success', note: 'ok' }, check: check(true) }),
    });
    const out = await r.done;
    expect(r.states).toEqual([
      'listBackends',
      'select',
      'start',
      'read',
      'decide',
      'answer',
      'read',
      'judge',
      'stop',
      'settled',
    ]);
    expect(r.ops).toEqual(['start', 'answer true', 'stop success']);
    expect(out).toMatchObject({
      verdict: { outcome: 'success', note: 'ok' },
      rounds: 1,
      clarifications: 1,
      checkRuns: 1,
      text: 'did it',
    });
  });

  test('turn_complete → judge → guide → read, until the check passes', async () => {
    const r = drive({
      turns: [TC, TC],
      judge: (n) =>
        n === 0
          ? { judgement: { kind: 'guide', text: 'fix', why: 'failed' }, check: check(false) }
          : { judgement: { kind: 'stop', outcome: 'success', note: 'ok' }, check: check(true) },
    });
    await r.done;
    expect(r.states).toEqual([
      'listBackends',
      'select',
      'start',
      'read',
      'judge',
      'guide',
      'read',
      'judge',
      'stop',
      'settled',
    ]);
    expect(r.ops).toEqual(['start', 'guide fix', 'stop success']);
  });

  test('ended | error | max_rounds → verify → stop', async () => {
    for (const terminal of [
      { kind: 'ended', ok: true, text: 't' },
      { kind: 'error', message: 'boom' },
      { kind: 'max_rounds', ok: true, text: 't', rounds: 4 },
    ] as ReadTurnResult[]) {
      const r = drive({ turns: [terminal], verify: { verdict: { outcome: 'failed', note: 'n', failureReason: 'n' } } });
      await r.done;
      expect(r.states).toEqual(['listBackends', 'select', 'start', 'read', 'verify', 'stop', 'settled']);
    }
  });

  test('a claimed success is capped: a failing check makes it failed, no check makes it partial', async () => {
    const claimed = { judgement: { kind: 'stop' as const, outcome: 'success' as const, note: 'trust me' } };
    expect((await drive({ turns: [TC], judge: () => ({ ...claimed, check: check(false) }) }).done).verdict).toEqual({
      outcome: 'failed',
      note: 'trust me',
      failureReason: 'the check `npm test` fails (exit 1)',
      code: 'PERSONA_CHECK_FAILED',
    });
    expect((await drive({ turns: [TC], judge: () => claimed, input: { hasCheck: false } }).done).verdict).toEqual({
      outcome: 'partial',
      note: 'trust me (not verified: no verify command)',
      failureReason: 'not verified: this persona and step have no verify command',
      code: 'PERSONA_NOT_VERIFIED',
    });
    expect(
      (
        await drive({
          turns: [{ kind: 'ended', ok: true, text: '' }],
          verify: { verdict: { outcome: 'success', note: 'ended' }, check: check(false) },
        }).done
      ).verdict.outcome,
    ).toBe('failed');
  });

  test('a check that keeps failing ends in failed once its attempts are spent, whatever the decider wants', async () => {
    const r = drive({
      turns: [TC, TC, TC],
      judge: () => ({ judgement: { kind: 'guide', text: 'again', why: 'x' }, check: check(false) }),
      input: { maxCheckAttempts: 2 },
    });
    const out = await r.done;
    expect(r.ops).toEqual(['start', 'guide again', 'stop failed']);
    expect(out.verdict).toEqual({
      outcome: 'failed',
      note: 'the check `npm test` still fails after 2 attempts (exit 1)',
      failureReason: 'the check `npm test` still fails after 2 attempts (exit 1)',
      code: 'PERSONA_CHECK_FAILED',
    });
  });

  test('a rejected start goes back to select, a bounded number of times', async () => {
    const rejection = new UsageError('POSTURE_CEILING_EXCEEDED', 'above the ceiling');
    const ok = drive({
      turns: [TC],
      starts: [rejection, undefined],
      judge: () => ({ judgement: { kind: 'stop', outcome: 'success', note: 'ok' }, check: check(true) }),
    });
    expect((await ok.done).rejections).toEqual([
      { backend: 'script', code: 'POSTURE_CEILING_EXCEEDED', message: 'above the ceiling' },
    ]);
    expect(ok.states.slice(0, 5)).toEqual(['listBackends', 'select', 'start', 'select', 'start']);
    const never = drive({ turns: [], starts: [rejection, rejection, rejection] });
    const out = await never.done;
    expect(out.verdict).toEqual({
      outcome: 'failed',
      note: 'could not start the agent session: above the ceiling',
      failureReason: 'could not start the agent session: above the ceiling',
      code: 'POSTURE_CEILING_EXCEEDED',
    });
    expect(out.rejections).toHaveLength(3);
    expect(never.ops).toEqual([]);
  });

  test('a decider that fails to decide a clarification denies it', async () => {
    const r = drive({
      turns: [{ kind: 'clarification', clarificationId: 'c1', toolName: 'Bash', input: {} }, TC],
      decide: () => Promise.reject(new Error('model down')),
      judge: () => ({ judgement: { kind: 'stop', outcome: 'failed', note: 'n' } }),
    });
    await r.done;
    expect(r.ops).toEqual(['start', 'answer false', 'stop failed']);
  });

  test('select failing settles without a session', async () => {
    const r = drive({ turns: [], select: () => Promise.reject(new Error('no available backend fits this persona')) });
    expect((await r.done).verdict).toEqual({
      outcome: 'failed',
      note: 'no available backend fits this persona',
      failureReason: 'no available backend fits this persona',
      code: 'PERSONA_FAILED',
    });
    expect(r.states).toEqual(['listBackends', 'select', 'settled']);
  });

  test('an abort while reading stops the session with aborted', async () => {
    const r = drive({ turns: [], hang: true });
    await new Promise<void>((resolve) => {
      const sub = r.actor.subscribe((snap) => {
        if (snap.value === 'read') {
          sub.unsubscribe();
          resolve();
        }
      });
    });
    r.actor.send({ type: 'abort', reason: 'Ctrl-C' });
    const out = await r.done;
    expect(out.verdict).toEqual({
      outcome: 'aborted',
      note: 'Ctrl-C',
      failureReason: 'Ctrl-C',
      code: 'PERSONA_ABORTED',
    });
    expect(r.ops).toEqual(['start', 'stop aborted']);
  });
});
