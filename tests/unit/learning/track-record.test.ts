import { describe, expect, test } from 'vitest';
import {
  appendOutcome,
  readOutcomes,
  trackRecordLines,
  TrackRecords,
  type HarnessOutcomeRecord,
} from '../../../engine/learning/index.js';
import { tempDir } from '../../helpers/temp.js';

const NOW = Date.parse('2026-03-10T12:00:00.000Z');
let n = 0;
function rec(
  backendId: string,
  outcome: HarnessOutcomeRecord['outcome'],
  over: Partial<HarnessOutcomeRecord> = {},
): HarnessOutcomeRecord {
  n++;
  return {
    version: 1,
    sessionId: `cs_${n}`,
    recordedAt: new Date(NOW - (100 - n) * 60_000).toISOString(),
    scope: 's',
    backendId,
    taskTags: [],
    rounds: 3,
    durationMs: 1000,
    outcome,
    outcomeSource: 'driver',
    interventions: { userGuidance: 0, clarifications: 0, postureEscalations: 0, interrupts: 0, total: 0 },
    ...over,
  };
}

describe('track-record lines', () => {
  test('runs, success rate, average rounds, last failure with its age; a sub-line per model with two runs or more', () => {
    const records = [
      rec('codex', 'success', { model: 'gpt-a', rounds: 2 }),
      rec('codex', 'failed', {
        model: 'gpt-a',
        rounds: 6,
        failureReason: 'the check `npm test` fails (exit 1)',
        recordedAt: new Date(NOW - 3 * 86_400_000).toISOString(),
      }),
      rec('codex', 'success', { model: 'gpt-b', rounds: 4 }),
      rec('codex', 'partial', {
        model: 'gpt-a',
        rounds: 5,
        recordedAt: new Date(NOW - 3 * 86_400_000 - 1000).toISOString(),
      }),
      rec('claude-code', 'success'),
    ];
    expect(trackRecordLines(records, 'codex', NOW)).toEqual([
      'codex: 4 runs, 50% success, avg 4.3 rounds, last failure: the check `npm test` fails (exit 1) (3d ago)',
      '  codex · gpt-a: 3 runs, 33% success, avg 4.3 rounds',
    ]);
    expect(trackRecordLines(records, 'claude-code', NOW)).toEqual(['claude-code: 1 run, 100% success, avg 3.0 rounds']);
    expect(trackRecordLines(records, 'gemini', NOW)).toBeUndefined();
  });

  test('cached for the TTL, reloaded after a new record', async () => {
    const home = await tempDir();
    let now = NOW;
    const book = new TrackRecords(home, { ttlMs: 60_000, now: () => now });
    expect(await book.lines('codex')).toBeUndefined();
    await appendOutcome(home, rec('codex', 'success'));
    expect(await book.lines('codex')).toBeUndefined();
    expect(book.loads).toBe(1);
    now += 60_000;
    expect(await book.lines('codex')).toEqual(['codex: 1 run, 100% success, avg 3.0 rounds']);
    expect(book.loads).toBe(2);
    await appendOutcome(
      home,
      rec('codex', 'failed', { failureReason: 'boom', recordedAt: new Date(now - 30_000).toISOString() }),
    );
    book.invalidate();
    expect(await book.lines('codex')).toEqual([
      'codex: 2 runs, 50% success, avg 3.0 rounds, last failure: boom (30s ago)',
    ]);
    expect(book.loads).toBe(3);
  });
});

describe('the outcomes file', () => {
  test('is appended once per session', async () => {
    const home = await tempDir();
    const r = rec('codex', 'success');
    expect(await appendOutcome(home, r)).toBe(true);
    expect(await appendOutcome(home, { ...r, outcome: 'failed' })).toBe(false);
    const [a, b] = await Promise.all([
      appendOutcome(home, rec('x', 'success', { sessionId: 'cs_same' })),
      appendOutcome(home, rec('x', 'success', { sessionId: 'cs_same' })),
    ]);
    expect([a, b].sort()).toEqual([false, true]);
    expect((await readOutcomes(home)).map((x) => `${x.sessionId} ${x.outcome}`)).toEqual([
      `${r.sessionId} success`,
      'cs_same success',
    ]);
  });
});
