import { describe, expect, it } from 'vitest';
import { toReadTurnResult, type TurnDiff } from '../../../engine/session/index.js';

const diff: TurnDiff = {
  source: 'git',
  files: [{ path: 'a.ts', status: 'M', insertions: 1, deletions: 0 }],
  summaryLine: '1 file changed (1 modified), +1 -0',
  unifiedDiff: '+x\n',
  truncated: true,
};
const history = { entries: [], omittedRounds: 0 };

describe('read-turn mapping', () => {
  it('maps each notification to exactly one result kind; the unified diff only on request', () => {
    const lean = { source: 'git', files: diff.files, summaryLine: diff.summaryLine };
    expect(
      toReadTurnResult(
        { kind: 'turn_complete', text: 't', actions: ['a'], numTurns: 2, costUsd: 0.1, turnDiff: diff },
        history,
        false,
      ),
    ).toEqual({
      kind: 'turn_complete',
      text: 't',
      actions: ['a'],
      numTurns: 2,
      costUsd: 0.1,
      roundHistory: history,
      turnDiff: lean,
    });
    expect(
      toReadTurnResult({ kind: 'turn_complete', text: 't', actions: [], turnDiff: diff }, history, true),
    ).toMatchObject({ turnDiff: { ...lean, unifiedDiff: '+x\n', truncated: true } });
    expect(
      toReadTurnResult(
        { kind: 'clarification', clarificationId: 'q', toolName: 'Bash', input: { command: 'ls' } },
        history,
        true,
      ),
    ).toEqual({ kind: 'clarification', clarificationId: 'q', toolName: 'Bash', input: { command: 'ls' } });
    expect(toReadTurnResult({ kind: 'ended', ok: false, text: 'gave up', turnDiff: diff }, history, false)).toEqual({
      kind: 'ended',
      ok: false,
      text: 'gave up',
      turnDiff: lean,
    });
    expect(
      toReadTurnResult({ kind: 'error', message: 'stalled: no agent event for 60s', stalled: true }, history, false),
    ).toEqual({ kind: 'error', message: 'stalled: no agent event for 60s', stalled: true });
    expect(
      toReadTurnResult({ kind: 'error', message: 'rate limited', transient: true, turnDiff: diff }, history, false),
    ).toEqual({ kind: 'error', message: 'rate limited', transient: true, turnDiff: lean });
    expect(toReadTurnResult({ kind: 'max_rounds', ok: true, text: 'last', rounds: 5 }, history, false)).toEqual({
      kind: 'max_rounds',
      ok: true,
      text: 'last',
      rounds: 5,
    });
  });
});
