import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { test } from 'node:test';
import { add } from '../src/math.js';
import { shout } from '../src/text.js';

test('the modules still work', () => {
  assert.equal(add(2, 3), 5);
  assert.equal(shout('hi'), 'HI!');
});

test('every module starts with a header comment', () => {
  for (const file of readdirSync(new URL('../src/', import.meta.url))) {
    const text = readFileSync(new URL(`../src/${file}`, import.meta.url), 'utf8');
    assert.match(text, /^\/\*\* .+ \*\/\n/, `${file} has no header comment`);
  }
});
