import { describe, expect, test } from 'vitest';
import { buildOutcomeRecord, countInterventions, inferOutcome } from '../../../engine/learning/index.js';
import type { CodeSessionRecord, PersistedSessionEvent, SessionEventPayload } from '../../../engine/session/index.js';

const T0 = Date.parse('2026-01-01T00:00:00.000Z');
const events = (list: SessionEventPayload[]): PersistedSessionEvent[] =>
  list.map((event, i) => ({ seq: i + 1, at: new Date(T0 + i * 1000).toISOString(), event }));

const RECORD: CodeSessionRecord = {
  sessionId: 'cs_a',
  backendId: 'codex',
  cwd: '/w',
  maxPosture: 'acceptEdits',
  taskBrief: 'b',
  taskTags: ['bugfix'],
  status: 'ended',
  createdAt: new Date(T0).toISOString(),
  updatedAt: new Date(T0 + 9000).toISOString(),
  roundsElapsed: 2,
  runs: [{ startedAt: new Date(T0).toISOString(), ownerScopeId: 'persona:x' }],
  version: 1,
};

const LOG = events([
  { type: 'created', backend: 'codex', posture: 'default', maxPosture: 'acceptEdits', maxRounds: 4, effort: 'medium' },
  { type: 'started', model: 'gpt-5.1-codex' },
  { type: 'clarify', clarificationId: 'c1', toolName: 'Bash', input: {} },
  { type: 'clarification', clarificationId: 'c1', toolName: 'Bash', decision: { allow: true } },
  { type: 'turn_complete', costUsd: 0.1, usage: { inputTokens: 10 } },
  { type: 'guidance', source: 'user', text: 'look at x' },
  { type: 'guidance', source: 'driver', text: 'fix y' },
  { type: 'posture', mode: 'acceptEdits' },
  { type: 'posture', mode: 'default' },
  { type: 'interrupt' },
  { type: 'turn_complete', costUsd: 0.25 },
  { type: 'released', reason: 'explicit', outcome: 'partial', note: 'half done' },
]);

describe('outcome records', () => {
  test('built from the durable record and its events', () => {
    const record = buildOutcomeRecord({ ...RECORD, outcome: 'partial', note: 'half done' }, LOG, {
      scope: 'persona:x',
      persona: 'fixer',
      failureReason: 'tests 3 and 4 still fail',
      recordedAt: '2026-01-02T00:00:00.000Z',
    });
    expect(record).toEqual({
      version: 1,
      sessionId: 'cs_a',
      recordedAt: '2026-01-02T00:00:00.000Z',
      scope: 'persona:x',
      persona: 'fixer',
      backendId: 'codex',
      model: 'gpt-5.1-codex',
      effort: 'medium',
      taskTags: ['bugfix'],
      rounds: 2,
      durationMs: 11_000,
      costUsd: 0.35,
      outcome: 'partial',
      outcomeSource: 'driver',
      interventions: { userGuidance: 1, clarifications: 1, postureEscalations: 1, interrupts: 1, total: 4 },
      failureReason: 'tests 3 and 4 still fail',
      driverNote: 'half done',
    });
  });

  test('the concrete model the backend chose is captured from started when the record has none; a pinned one wins', () => {
    expect(buildOutcomeRecord(RECORD, LOG, { scope: 's', recordedAt: 'now' }).model).toBe('gpt-5.1-codex');
    expect(buildOutcomeRecord({ ...RECORD, model: 'gpt-pinned' }, LOG, { scope: 's', recordedAt: 'now' }).model).toBe(
      'gpt-pinned',
    );
  });

  test('without a driver verdict the outcome is inferred, never partial', () => {
    const infer = (list: SessionEventPayload[]) => inferOutcome(events(list));
    expect(
      infer([
        { type: 'ended', ok: true, text: 'done' },
        { type: 'released', reason: 'sweep' },
      ]),
    ).toEqual({ outcome: 'success' });
    expect(infer([{ type: 'ended', ok: false, text: 'gave up' }])).toEqual({
      outcome: 'failed',
      reason: 'the agent ended the session with a failure: gave up',
    });
    expect(infer([{ type: 'error', message: 'rate limited' }])).toEqual({
      outcome: 'failed',
      reason: 'agent error: rate limited',
    });
    expect(infer([{ type: 'stalled', idleMs: 600_000 }])).toEqual({
      outcome: 'failed',
      reason: 'stalled: no agent event for 600s',
    });
    expect(infer([{ type: 'max_rounds', rounds: 8 }])).toEqual({
      outcome: 'failed',
      reason: 'the round cap (8) was reached without a verdict',
    });
    expect(infer([{ type: 'turn_complete' }, { type: 'released', reason: 'sweep' }])).toEqual({
      outcome: 'aborted',
      reason: 'released (sweep) without a verdict',
    });
    // A person stopping a session after a clean turn: success; an interrupt last: aborted.
    expect(infer([{ type: 'turn_complete' }, { type: 'released', reason: 'explicit' }])).toEqual({
      outcome: 'success',
    });
    expect(infer([{ type: 'turn_complete' }, { type: 'interrupt' }, { type: 'released', reason: 'explicit' }])).toEqual(
      { outcome: 'aborted', reason: 'interrupted before a verdict' },
    );
    const built = buildOutcomeRecord(
      RECORD,
      events([{ type: 'turn_complete' }, { type: 'released', reason: 'sweep' }]),
      { scope: 's', recordedAt: 'now' },
    );
    expect(built).toMatchObject({
      outcome: 'aborted',
      outcomeSource: 'inferred',
      failureReason: 'released (sweep) without a verdict',
    });
    expect(built.costUsd).toBeUndefined();
  });

  test('interventions count posture escalations only upward', () => {
    expect(
      countInterventions(
        events([
          { type: 'created', backend: 'x', posture: 'plan', maxPosture: 'full', maxRounds: 1 },
          { type: 'posture', mode: 'default' },
          { type: 'posture', mode: 'plan' },
          { type: 'posture', mode: 'full' },
        ]),
      ).postureEscalations,
    ).toBe(2);
  });
});
