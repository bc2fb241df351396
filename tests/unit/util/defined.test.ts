import { describe, expect, it } from 'vitest';
import { defined } from '../../../engine/util/defined.js';

describe('defined', () => {
  it('keeps every property but the undefined ones (null, 0, false and empty strings stay)', () => {
    const out = defined({ a: 1, b: undefined, c: null, d: 0, e: false, f: '' });
    expect(Object.keys(out)).toEqual(['a', 'c', 'd', 'e', 'f']);
    expect('b' in out).toBe(false);
  });
});
