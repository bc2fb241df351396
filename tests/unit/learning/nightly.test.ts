import { readFile } from 'node:fs/promises';
import { describe, expect, test } from 'vitest';
import {
  appendOutcome,
  auditPath,
  lessonsEnabled,
  scheduledPass,
  scheduleDistill,
  type HarnessOutcomeRecord,
} from '../../../engine/learning/index.js';
import { tempDir } from '../../helpers/temp.js';

const T0 = Date.parse('2026-03-02T04:00:00.000Z');
const HOUR = 3_600_000;

function outcome(id: string): HarnessOutcomeRecord {
  return {
    version: 1,
    sessionId: id,
    recordedAt: new Date(T0 - HOUR).toISOString(),
    scope: 'owner',
    backendId: 'codex',
    taskTags: [],
    rounds: 1,
    durationMs: 1,
    outcome: 'success',
    outcomeSource: 'inferred',
    interventions: { userGuidance: 0, clarifications: 0, postureEscalations: 0, interrupts: 0, total: 0 },
  };
}

const ANSWER = JSON.stringify({ lessons: [{ text: 'Codex is fine here.', scope: { backend: 'codex' } }] });

describe('the scheduled pass, failure-soft', () => {
  test('runs, then is throttled, then the budget reserve stops it; every attempt is audited', async () => {
    const home = await tempDir();
    await appendOutcome(home, outcome('cs_1'));
    const base = { home, cwd: home, backends: () => ['codex'], reserveTokens: 700 };
    const distil = (_signal: AbortSignal, spent: (n: number) => void) => async () => (spent(800), ANSWER);
    expect(await scheduledPass({ ...base, now: () => T0, distil })).toMatchObject({
      result: 'ran',
      tokens: 800,
      outcomes: 1,
      lessons: 1,
    });
    expect(await scheduledPass({ ...base, now: () => T0 + HOUR, distil })).toMatchObject({
      result: 'skipped',
      reason: `throttled: the last pass ran at ${new Date(T0).toISOString()}`,
    });
    await appendOutcome(home, { ...outcome('cs_2'), recordedAt: new Date(T0 + 20 * HOUR).toISOString() });
    expect(await scheduledPass({ ...base, now: () => T0 + 21 * HOUR, distil })).toMatchObject({
      result: 'skipped',
      reason: 'budget reserve spent: 800 of 700 tokens in 24h',
    });
    // A day later the reserve is free again.
    expect(await scheduledPass({ ...base, now: () => T0 + 25 * HOUR, distil })).toMatchObject({
      result: 'ran',
      outcomes: 1,
    });
    const audit = (await readFile(auditPath(home), 'utf8')).trim().split('\n');
    expect(audit.map((l) => JSON.parse(l).result)).toEqual(['ran', 'skipped', 'skipped', 'ran']);
  });

  test('a hung model times out and a failing one is audited; neither throws', async () => {
    const home = await tempDir();
    await appendOutcome(home, outcome('cs_1'));
    const base = { home, cwd: home, backends: () => ['codex'], now: () => T0 };
    const hung = await scheduledPass({ ...base, timeoutMs: 50, distil: () => () => new Promise<string>(() => {}) });
    expect(hung).toMatchObject({ result: 'failed', reason: 'timed out after 50 ms' });
    const broken = await scheduledPass({
      ...base,
      distil: () => async () => {
        throw new Error('provider down');
      },
    });
    expect(broken).toMatchObject({ result: 'failed', reason: 'provider down' });
  });

  test('on by default, NEO_LESSONS=off disables it, a bad cron turns it off without throwing', () => {
    expect(lessonsEnabled({})).toBe(true);
    expect(lessonsEnabled({ NEO_LESSONS: 'off' })).toBe(false);
    const options = { home: '/nonexistent', cwd: '/', backends: () => [] };
    expect(scheduleDistill(undefined, { ...options, env: { NEO_LESSONS: 'off' } })).toBeUndefined();
    const job = scheduleDistill(undefined, { ...options, env: {} });
    expect(job?.next()?.getMinutes()).toBe(0);
    job?.stop();
    const warned: string[] = [];
    expect(
      scheduleDistill('not a cron', { ...options, env: {}, log: (_l, event) => void warned.push(event) }),
    ).toBeUndefined();
    expect(warned).toEqual(['learn_schedule_invalid']);
  });
});
