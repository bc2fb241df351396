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

  it('refuses a NUL byte anywhere in a value (string, list item, key, JSON text) before the run starts', () => {
    const nul = (given: Record<string, unknown>, text: string[] = []) =>
      resolveInputs(specs, { name: 'x', ...given }, new Set(text)).problems;
    const hint = 'remove the \\0 from the value (a file path or text never contains one)';
    expect(nul({ name: 'a\u0000b' })).toEqual([
      {
        code: 'FLOW_INPUT_NUL_BYTE',
        message: 'input `name` holds a NUL byte: no command or agent can receive it',
        hint,
      },
    ]);
    expect(nul({ files: ['ok', 'b\u0000'] })).toEqual([
      {
        code: 'FLOW_INPUT_NUL_BYTE',
        message: 'input `files` holds a NUL byte (at `files[1]`): no command or agent can receive it',
        hint,
      },
    ]);
    expect(nul({ opts: { 'k\u0000': 1 } }).map((p) => p.code)).toEqual(['FLOW_INPUT_NUL_BYTE']);
    expect(nul({ files: '["\\u0000"]' }, ['files']).map((p) => p.code)).toEqual(['FLOW_INPUT_NUL_BYTE']);
    const withDefault = { ...specs, note: { type: 'string' as const, required: false, default: 'x\u0000' } };
    expect(resolveInputs(withDefault, { name: 'x' }, new Set()).problems.map((p) => p.code)).toEqual([
      'FLOW_INPUT_NUL_BYTE',
    ]);
  });

  it('refuses a value nested past 64 levels without overflowing the stack', () => {
    const deep = `${'['.repeat(100_000)}${']'.repeat(100_000)}`;
    const { problems } = resolveInputs(specs, { name: 'x', files: deep }, new Set(['files']));
    expect(problems.map((p) => p.code)).toEqual(['FLOW_INPUT_TOO_DEEP']);
  });
});
