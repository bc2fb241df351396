import { describe, expect, test } from 'vitest';
import { commandFragments, splitCommand, startsWithWords } from '../../../engine/persona/index.js';

describe('splitCommand', () => {
  test.each([
    ['npm test', ['npm', 'test'], false],
    ['npm   test  -- --watch', ['npm', 'test', '--', '--watch'], false],
    [`node -e "console.log('a; b')"`, ['node', '-e', "console.log('a; b')"], false],
    [`echo 'it''s'`, ['echo', 'its'], false],
    ['echo a\\ b', ['echo', 'a b'], false],
    ['npm test && rm -rf x', ['npm', 'test', 'rm', '-rf', 'x'], true],
    ['npm test; rm x', ['npm', 'test', 'rm', 'x'], true],
    ['npm test | tee log', ['npm', 'test', 'tee', 'log'], true],
    ['npm test > /etc/passwd', ['npm', 'test', '/etc/passwd'], true],
    ['npm test & sleep 1', ['npm', 'test', 'sleep', '1'], true],
    ['npm test $(rm -rf x)', ['npm', 'test', 'rm', '-rf', 'x'], true],
    ['npm test `rm -rf x`', ['npm', 'test', 'rm', '-rf', 'x'], true],
    ['npm test "$(rm -rf x)"', ['npm', 'test', '$(rm -rf x)'], true],
    ["npm test '$(not a substitution)'", ['npm', 'test', '$(not a substitution)'], false],
    ['npm test\nrm x', ['npm', 'test', 'rm', 'x'], true],
  ])('%j', (line, words, compound) => {
    const read = splitCommand(line);
    expect(read.words).toEqual(words);
    expect(read.compound).toBe(compound);
  });

  test('an unclosed quote is reported', () => {
    expect(splitCommand('echo "oops').unterminated).toBe(true);
  });
});

describe('startsWithWords', () => {
  test('whole words only', () => {
    expect(startsWithWords(['npm', 'test', '--', '--watch'], 'npm test')).toBe(true);
    expect(startsWithWords(['npm', 'tests'], 'npm test')).toBe(false);
    expect(startsWithWords(['npm'], 'npm test')).toBe(false);
    expect(startsWithWords(['npm', 'test'], '')).toBe(false);
  });
});

describe('commandFragments', () => {
  test('every simple command of a chain, even inside quotes', () => {
    expect(commandFragments('npm test && rm -rf x')).toEqual([
      ['npm', 'test'],
      ['rm', '-rf', 'x'],
    ]);
    expect(commandFragments('echo "$(rm -rf x)"')).toEqual([['echo'], ['rm', '-rf', 'x']]);
    expect(commandFragments('a | b; c')).toEqual([['a'], ['b'], ['c']]);
  });
});
