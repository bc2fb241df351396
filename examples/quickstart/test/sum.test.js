import assert from 'node:assert/strict';
import { test } from 'node:test';
import { sum } from '../src/sum.js';

test('adds a list', () => {
  assert.equal(sum([1, 2, 3]), 6);
});

test('an empty list adds up to 0', () => {
  assert.equal(sum([]), 0);
});
