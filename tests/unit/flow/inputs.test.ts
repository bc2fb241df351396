import { describe, expect, it } from 'vitest';
import { resolveInputs } from '../../../engine/flow/core/inputs.js';
import type { InputSpec } from '../../../engine/flow/core/plan.js';

const specs: Record<string, InputSpec> = {
  name: { type: 'string', required: true },
  count: { type: 'number', required: false, default: 1 },
  dry: { type: 'boolean', required: false, default: false },
  files: { type: 'list', required: false, default: [] },
  opts: { type: 'object', required: false, default: {} },
  level: { type: 'string', required: false, default: 'low', enum: ['low', 'high'] },
};

describe('resolveInputs', () => {
  it('converts --input text to each declared type and fills defaults', () => {
    const given = { name: 'x', count: '3', dry: 'yes', files: 'a.ts, b.ts', opts: '{"k":1}' };
    expect(resolveInputs(specs, given, new Set(Object.keys(given)))).toEqual({
      values: { name: 'x', count: 3, dry: true, files: ['a.ts', 'b.ts'], opts: { k: 1 }, level: 'low' },
      problems: [],
    });
    expect(resolveInputs(specs, { name: 'x', files: '["a b"]' }, new Set(['name', 'files'])).values.files).toEqual([
      'a b',
    ]);
  });

  it('takes values from an inputs file as they are typed, and reports each problem', () => {
    const { problems } = resolveInputs(specs, { count: '3', level: 'mid', nam: 'y' }, new Set());
    expect(problems).toEqual([
      { code: 'FLOW_INPUT_TYPE', message: 'input `count` must be a number, got "3"' },
      { code: 'FLOW_INPUT_UNKNOWN', message: 'unknown input `nam`', hint: 'did you mean `name`?' },
      { code: 'FLOW_INPUT_MISSING', message: 'input `name` is required', hint: 'pass --input name=<value>' },
      { code: 'FLOW_INPUT_ENUM', message: 'input `level` is "mid", not one of "low", "high"' },
    ]);
  });
});
