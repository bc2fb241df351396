import { describe, expect, it } from 'vitest';
import { DiffFold } from '../../../engine/flow/agent/diff-fold.js';
import { checkOutputSchema, extractJson } from '../../../engine/persona/output-schema.js';
import { budgetExceeded } from '../../../engine/flow/core/budget.js';

describe('agent step parts', () => {
  it('folds turn diffs: latest status per path, added-then-deleted is no change, counts add up', () => {
    const fold = new DiffFold();
    fold.add({
      source: 'git',
      files: [
        { path: 'a', status: 'M', insertions: 1, deletions: 1 },
        { path: 'tmp', status: 'A', insertions: 3, deletions: 0 },
      ],
      summaryLine: '',
      unifiedDiff: 'diff a',
    });
    fold.add({
      source: 'git',
      files: [
        { path: 'a', status: 'M', insertions: 2, deletions: 0 },
        { path: 'tmp', status: 'D' },
      ],
      summaryLine: '',
    });
    expect(fold.result()).toEqual({
      files: [{ path: 'a', status: 'M', insertions: 3, deletions: 1 }],
      summary: '1 file changed, +3 -1',
      unified: 'diff a',
      truncated: false,
      source: 'git',
    });
    expect(new DiffFold().result().summary).toBe('no files changed');
  });

  it('finds JSON in a final answer: a fenced block, the whole text, or the last object', async () => {
    expect(extractJson('Done.\n```json\n{"a":1}\n```\n')).toEqual({ a: 1 });
    expect(extractJson(' [1,2] ')).toEqual([1, 2]);
    expect(extractJson('I think {"ok": true} is the answer')).toEqual({ ok: true });
    expect(extractJson('no json here')).toBeUndefined();
    expect(await checkOutputSchema('{"n": "x"}', { type: 'object', properties: { n: { type: 'number' } } })).toEqual({
      ok: false,
      message: 'the final answer does not match outputSchema: /n must be number',
    });
    expect(await checkOutputSchema('plain words', { type: 'object' })).toEqual({
      ok: false,
      message: 'the final answer holds no JSON; the step asks for JSON matching its outputSchema',
    });
  });

  it('checks budgets before a new turn: turns past the cap, cost, tokens or time at the cap', () => {
    const ledger = { turns: 2, tokens: 100, costUsd: 1, wallMs: 1000 };
    expect(budgetExceeded({ maxTurns: 3 }, ledger, { newTurn: true })).toBeUndefined();
    expect(budgetExceeded({ maxTurns: 2 }, ledger, { newTurn: true })?.message).toBe(
      'budget maxTurns reached (2 turns used of 2); the run stopped before starting more work',
    );
    expect(budgetExceeded({ maxTurns: 2 }, ledger, { newTurn: false })).toBeUndefined();
    expect(budgetExceeded({ maxCostUsd: 1 }, ledger, { newTurn: true })?.message).toBe(
      'budget maxCostUsd reached ($1.0000 spent of $1); the run stopped before starting more work',
    );
    expect(budgetExceeded({ maxTokens: 100 }, ledger, { newTurn: true })?.code).toBe('FLOW_BUDGET_EXCEEDED');
    expect(budgetExceeded({ maxDurationMs: 1500 }, ledger, { newTurn: false, liveWallMs: 600 })?.message).toBe(
      'budget maxDuration reached (2s of 2s); the run stopped before starting more work',
    );
  });
});
