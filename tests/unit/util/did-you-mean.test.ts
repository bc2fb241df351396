import { describe, expect, it } from 'vitest';
import { didYouMean, editDistance } from '../../../engine/util/did-you-mean.js';

describe('did-you-mean', () => {
  it('counts a swap of neighbouring letters as one edit', () => {
    expect(editDistance('sya', 'say')).toBe(1);
    expect(editDistance('reveiwer', 'reviewer')).toBe(1);
    expect(editDistance('kitten', 'sitting')).toBe(3);
    expect(editDistance('', 'abc')).toBe(3);
  });

  it('suggests the closest candidate only when it is close enough to be a typo', () => {
    expect(didYouMean('sya', ['say', 'think', 'write'])).toBe('say');
    expect(didYouMean('tolls', ['tools', 'model'])).toBe('tools');
    expect(didYouMean('Persna', ['persona', 'policy'])).toBe('persona');
    expect(didYouMean('xyz', ['persona', 'policy'])).toBeUndefined();
  });
});
