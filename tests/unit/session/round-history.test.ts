import { describe, expect, it } from 'vitest';
import { DIET_LIMITS, RoundHistoryLog } from '../../../engine/session/index.js';
import { clip } from '../../../engine/session/round-history.js';

describe('round history diet', () => {
  it('keeps the last rounds, pre-truncated, and never drops a pinned entry', () => {
    const log = new RoundHistoryLog();
    log.pinClarification(1, { clarificationId: 'q1', toolName: 'Bash', allow: false, reason: 'no' });
    for (let round = 1; round <= 20; round++)
      log.addRound(
        round,
        'x'.repeat(5000),
        Array.from({ length: 30 }, (_, i) => `Edit f${i}.ts`),
      );
    log.pinUserGuidance(21, 'keep the API stable');
    const { entries, omittedRounds } = log.snapshot();
    expect(omittedRounds).toBe(20 - DIET_LIMITS.rounds);
    expect(entries[0]).toEqual({
      kind: 'clarification',
      round: 1,
      clarificationId: 'q1',
      toolName: 'Bash',
      allow: false,
      reason: 'no',
      pinned: true,
    });
    expect(entries.at(-1)).toEqual({ kind: 'user_guidance', round: 21, text: 'keep the API stable', pinned: true });
    const rounds = entries.filter((e) => e.kind === 'round');
    expect(rounds.map((r) => r.round)).toEqual([15, 16, 17, 18, 19, 20]);
    for (const r of rounds) {
      expect(r.text.length).toBe(DIET_LIMITS.roundTextChars);
      expect(r.actions).toHaveLength(DIET_LIMITS.actionsPerRound);
      expect(r.actions[0]).toBe('… 19 earlier actions');
      expect(r.actions.at(-1)).toBe('Edit f29.ts');
    }
  });

  it('orders a pinned entry before the digest of the round it happened in', () => {
    const log = new RoundHistoryLog();
    log.addRound(1, 'one', []);
    log.pinClarification(2, { clarificationId: 'q', toolName: 'T', allow: true });
    log.addRound(2, 'two', []);
    expect(log.snapshot().entries.map((e) => `${e.kind}:${e.round}`)).toEqual([
      'round:1',
      'clarification:2',
      'round:2',
    ]);
  });

  it('clips long text keeping head and tail', () => {
    expect(clip('abcdefghij', 5)).toBe('ab…ij');
    expect(clip('short', 10)).toBe('short');
  });
});
