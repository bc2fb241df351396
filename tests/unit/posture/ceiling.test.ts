import { describe, expect, it } from 'vitest';
import { underCeiling } from '../../../engine/posture/index.js';

const scope = { posture: 'default' as const, name: "this scope's ceiling" };

describe('the one ceiling rule', () => {
  it('keeps a posture within the ceiling, refuses one above it with one code, never clamps an explicit ask', () => {
    expect(underCeiling('maxPosture', 'plan', scope)).toEqual({ ok: true, posture: 'plan' });
    expect(underCeiling('maxPosture', 'default', scope)).toEqual({ ok: true, posture: 'default' });
    expect(underCeiling('maxPosture', 'full', scope)).toEqual({
      ok: false,
      code: 'POSTURE_CEILING_EXCEEDED',
      message: "maxPosture `full` is above this scope's ceiling `default`",
      hint: 'ask for `default` or less',
    });
  });

  it('gives an unasked posture the fallback held down to the ceiling, or the ceiling itself', () => {
    expect(underCeiling('maxPosture', undefined, scope)).toEqual({ ok: true, posture: 'default' });
    expect(underCeiling('maxPosture', undefined, scope, 'full')).toEqual({ ok: true, posture: 'default' });
    expect(underCeiling('maxPosture', undefined, scope, 'plan')).toEqual({ ok: true, posture: 'plan' });
  });
});
