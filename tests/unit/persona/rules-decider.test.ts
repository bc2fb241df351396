import { describe, expect, test } from 'vitest';
import {
  RulesDecider,
  verdictFor,
  type CheckResult,
  type HumanAsker,
  type RulesDeciderOptions,
  type SessionInfo,
} from '../../../engine/persona/index.js';
import type { Routing } from '../../../engine/definitions/index.js';
import { listing } from '../../fixtures/persona/listing.js';

const SESSION: SessionInfo = {
  sessionId: 'cs_x',
  backend: 'fake',
  posture: 'default',
  maxPosture: 'acceptEdits',
  maxRounds: 4,
  cwd: '/repo',
};
const failing: CheckResult = {
  command: 'npm test',
  passed: false,
  exitCode: 1,
  timedOut: false,
  tail: 'FAIL a.test.ts',
  durationMs: 5,
};
const ROUTING: Routing = {
  description: 'test',
  taskClasses: {
    bugfix: {
      description: 'fix',
      subscription: { modelClass: 'standard', effort: 'medium' },
      metered: { modelClass: 'cheap', effort: 'low', note: 'keep it cheap' },
    },
  },
};

function decider(over: Partial<RulesDeciderOptions> = {}) {
  return new RulesDecider({
    rules: {
      clarify: [{ decision: 'ask', tool: ['WebFetch'] }],
      gateGuidance: 'Still failing:\n{output}\n(ran {command})',
    },
    brief: 'Fix the bug.',
    taskTags: ['bugfix'],
    initialPosture: 'default',
    wantsToolLimit: false,
    routings: [{ id: 'default', data: ROUTING }],
    verify: 'npm test',
    ...over,
  });
}

describe('the rules decider', () => {
  test('select: shapes the brief, follows routing advice for the task tags, explicit model wins', async () => {
    const plan = await decider().select({
      listing: [listing('fake', { costProfile: 'metered', effortSupport: { levels: ['low', 'medium'] } })],
      rejections: [],
    });
    expect(plan).toEqual({
      backend: 'fake',
      brief:
        'Fix the bug.\n\nAcceptance: `npm test` must pass. Run it yourself before you report done, and fix the cause of any failure; do not weaken or skip a test.\n\nReport: end with a short summary of what changed, why, and how you checked it.',
      taskTags: ['bugfix'],
      initialPosture: 'default',
      agentModel: 'cheap',
      effort: 'low',
      why: 'fake: no preference given; routing (bugfix): cheap @ low',
    });
    const pinned = await decider({ agentModel: 'fake-max', effort: 'high' }).select({
      listing: [listing('fake')],
      rejections: [],
    });
    expect(pinned).toMatchObject({ agentModel: 'fake-max', effort: 'high', why: 'fake: no preference given' });
    // A backend that picks its own model and takes no effort gets neither.
    const none = await decider().select({
      listing: [listing('fake', { modelSelection: 'none', effortSupport: { levels: [] } })],
      rejections: [],
    });
    expect(none.agentModel).toBeUndefined();
    expect(none.effort).toBeUndefined();
  });

  test("judge: a failed check becomes the persona's guidance while attempts are left", async () => {
    const d = decider();
    const turn = { kind: 'turn_complete' as const, actions: [], text: '', roundHistory: {} as never };
    expect(await d.judge({ turn, session: SESSION, check: failing, attemptsLeft: true, attempt: 1 })).toEqual({
      kind: 'guide',
      text: 'Still failing:\nFAIL a.test.ts\n(ran npm test)',
      why: '`npm test` failed (attempt 1)',
    });
    expect(await d.judge({ turn, session: SESSION, check: failing, attemptsLeft: false, attempt: 3 })).toEqual({
      kind: 'stop',
      outcome: 'failed',
      note: 'the check `npm test` still fails after 3 attempts (exit 1)',
      code: 'PERSONA_CHECK_FAILED',
    });
    expect(
      await d.judge({
        turn,
        session: SESSION,
        check: { ...failing, passed: true, exitCode: 0 },
        attemptsLeft: true,
        attempt: 1,
      }),
    ).toEqual({ kind: 'stop', outcome: 'success', note: '`npm test` passed' });
  });

  test('decide: an ask goes to a person; without one it is denied', async () => {
    const ask = {
      kind: 'clarification' as const,
      clarificationId: 'c1',
      toolName: 'WebFetch',
      input: { url: 'https://x' },
    };
    expect(await decider().decide({ clarification: ask, session: SESSION })).toEqual({
      allow: false,
      reason: "WebFetch needs a person's decision; no person can be asked here, so it is not allowed",
      by: 'clarify[0]',
    });
    const asked: string[] = [];
    const asker: HumanAsker = {
      ask: async (q) => {
        asked.push(`${q.runId}/${q.key}: ${q.prompt} [${q.decisions.map((d) => d.id).join('|')}]`);
        return { decision: 'allow', note: 'fine once', by: 'tty', at: 'now' };
      },
    };
    const human = decider({ human: { asker, runId: 'run1', keyPrefix: 'fix-', signal: new AbortController().signal } });
    expect(await human.decide({ clarification: ask, session: SESSION })).toEqual({
      allow: true,
      reason: 'fine once',
      by: 'clarify[0] → human (tty)',
    });
    expect(asked).toEqual(['run1/fix-q1: Allow WebFetch? [allow|deny]']);
  });

  test('decide: a plan-only session refuses writes and commands before any rule', async () => {
    const d = decider({ rules: { clarify: [{ decision: 'allow' }] } });
    const ask = { kind: 'clarification' as const, clarificationId: 'c1', toolName: 'Bash', input: { command: 'ls' } };
    expect(
      await d.decide({ clarification: ask, session: { ...SESSION, maxPosture: 'plan', posture: 'plan' } }),
    ).toMatchObject({ allow: false, by: 'posture' });
    expect(await d.decide({ clarification: ask, session: SESSION })).toMatchObject({ allow: true, by: 'clarify[0]' });
  });

  test('verify: verdicts for each way a session ends', () => {
    const s = SESSION;
    expect(
      verdictFor({ terminal: { kind: 'ended', ok: true, text: '' }, session: s, check: { ...failing, passed: true } }),
    ).toEqual({ outcome: 'success', note: 'the agent ended the session; `npm test` passed' });
    expect(verdictFor({ terminal: { kind: 'ended', ok: true, text: '' }, session: s, check: failing })).toEqual({
      outcome: 'failed',
      note: 'the check `npm test` fails after the agent ended the session (exit 1)',
      failureReason: 'the check `npm test` fails after the agent ended the session (exit 1)',
      code: 'PERSONA_CHECK_FAILED',
    });
    expect(verdictFor({ terminal: { kind: 'ended', ok: false, text: 'gave up' }, session: s })).toMatchObject({
      outcome: 'failed',
      failureReason: 'the agent ended the session with a failure: gave up',
    });
    expect(
      verdictFor({ terminal: { kind: 'error', message: 'no event for 600s', stalled: true }, session: s }),
    ).toMatchObject({ outcome: 'failed', failureReason: 'stalled: no event for 600s', code: 'PERSONA_STALLED' });
    expect(
      verdictFor({ terminal: { kind: 'max_rounds', ok: true, text: '', rounds: 4 }, session: s, check: failing }),
    ).toMatchObject({
      outcome: 'failed',
      failureReason: 'the agent used all 4 rounds and the check `npm test` still fails',
      code: 'PERSONA_MAX_ROUNDS',
    });
  });
});
