import assert from 'node:assert/strict';
import { test } from 'node:test';
import { slug } from '../src/slug.js';

test('joins words with dashes', () => {
  assert.equal(slug('hello world'), 'hello-world');
});

test('lower-cases', () => {
  assert.equal(slug('Hello World'), 'hello-world');
});
