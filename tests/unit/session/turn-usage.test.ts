import { describe, expect, it } from 'vitest';
import { TurnUsage } from '../../../engine/session/index.js';

describe('TurnUsage: a turn is charged once, whenever its backend reports', () => {
  it('charges each model call as it streams, and at the end only what the calls left out', () => {
    const turn = new TurnUsage();
    expect(turn.during({ usage: { inputTokens: 2000, outputTokens: 300 }, costUsd: 0.01 })).toEqual({
      tokens: 2300,
      costUsd: 0.01,
    });
    expect(turn.during({ usage: { inputTokens: 2000, outputTokens: 300 } })).toEqual({ tokens: 2300, costUsd: 0 });
    expect(turn.end({ usage: { inputTokens: 4100, outputTokens: 700 }, costUsd: 0.03 })).toEqual({
      tokens: 200,
      costUsd: 0.02,
    });
    // The next turn starts from nothing.
    expect(turn.end({ usage: { inputTokens: 10, outputTokens: 5 } })).toEqual({ tokens: 15, costUsd: 0 });
  });

  it('a backend that reports only at the end is charged then; an end without figures charges nothing more', () => {
    const turn = new TurnUsage();
    expect(turn.end({ usage: { inputTokens: 45000, outputTokens: 4259 } })).toEqual({ tokens: 49259, costUsd: 0 });
    turn.during({ usage: { inputTokens: 100 } });
    expect(turn.end({})).toEqual({ tokens: 0, costUsd: 0 });
    turn.during({ usage: { inputTokens: 100 } });
    turn.reset();
    expect(turn.end({ usage: { inputTokens: 50 } })).toEqual({ tokens: 50, costUsd: 0 });
  });
});
