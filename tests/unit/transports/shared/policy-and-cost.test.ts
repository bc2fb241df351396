import { describe, expect, it } from 'vitest';
import { CumulativeCost, usdForUsage } from '../../../../engine/transports/shared/cost.js';

describe('cost', () => {
  it('turns running totals into per-turn deltas', () => {
    const cost = new CumulativeCost();
    expect(cost.takeTurnDelta()).toBeUndefined();
    cost.observe(0.0125);
    expect(cost.takeTurnDelta()).toBe(0.0125);
    cost.observe(0.025);
    cost.observe(0.0375);
    expect(cost.takeTurnDelta()).toBe(0.025);
    expect(cost.takeTurnDelta()).toBe(0);
  });

  it('prices tokens per million, cached input at its own rate, and never invents a price', () => {
    const pricing = { 'gpt-x': { input: 1.25, cachedInput: 0.125, output: 10 }, 'gpt-y': { input: 2, output: 8 } };
    expect(usdForUsage(pricing, 'gpt-x', { inputTokens: 1000, cachedInputTokens: 200, outputTokens: 150 })).toBe(
      0.002525,
    );
    expect(usdForUsage(pricing, 'gpt-y', { inputTokens: 1000, cachedInputTokens: 200, outputTokens: 100 })).toBe(
      0.0028,
    );
    expect(usdForUsage(pricing, 'openai/gpt-x', { inputTokens: 1_000_000 })).toBe(1.25);
    expect(usdForUsage(pricing, 'gpt-z', { inputTokens: 1 })).toBeUndefined();
    expect(usdForUsage(undefined, 'gpt-x', { inputTokens: 1 })).toBeUndefined();
    expect(usdForUsage(pricing, undefined, { inputTokens: 1 })).toBeUndefined();
  });
});
