import { describe, expect, it } from 'vitest';
import { CumulativeCost, usdForUsage } from '../../../../engine/transports/shared/cost.js';
import { classifyAcpKind, classifyToolName, gateToolAsk } from '../../../../engine/transports/shared/posture-gate.js';

describe('gateToolAsk', () => {
  it('plan denies everything but reads; default asks; acceptEdits passes edits; full passes all', () => {
    const table = (['plan', 'default', 'acceptEdits', 'full'] as const).map((posture) => [
      posture,
      ...(['read', 'edit', 'execute'] as const).map((cls) => gateToolAsk(posture, cls, 'T').kind),
    ]);
    expect(table).toEqual([
      ['plan', 'ask', 'deny', 'deny'],
      ['default', 'ask', 'ask', 'ask'],
      ['acceptEdits', 'allow', 'allow', 'ask'],
      ['full', 'allow', 'allow', 'allow'],
    ]);
    expect(gateToolAsk('plan', 'edit', 'Write')).toEqual({
      kind: 'deny',
      reason: 'posture plan forbids file edits (Write)',
    });
    expect(gateToolAsk('plan', 'execute', 'Bash')).toEqual({
      kind: 'deny',
      reason: 'posture plan forbids running commands (Bash)',
    });
  });

  it('classifies tools by name (descriptor edit tools first) and ACP kinds, unknown as execute', () => {
    expect(
      ['Write', 'Edit', 'Read', 'Grep', 'Bash', 'mcp__x__y'].map((n) => classifyToolName(n, ['Write', 'Edit'])),
    ).toEqual(['edit', 'edit', 'read', 'read', 'execute', 'execute']);
    expect(classifyToolName('MultiEdit', undefined)).toBe('edit');
    expect(
      ['read', 'search', 'fetch', 'think', 'edit', 'delete', 'move', 'execute', 'switch_mode', 'other', undefined].map(
        classifyAcpKind,
      ),
    ).toEqual(['read', 'read', 'read', 'read', 'edit', 'edit', 'edit', 'execute', 'execute', 'execute', 'execute']);
  });
});

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
