import { describe, expect, test } from 'vitest';
import { readCommandLine } from '../../../engine/posture/index.js';

const words = (line: string) => readCommandLine(line).tokens.map((t) => ('word' in t ? t.word : `<${t.op}>`));

describe('readCommandLine splits as /bin/sh would', () => {
  test.each([
    ['npm test', ['npm', 'test'], undefined],
    ['npm   test  -- --watch', ['npm', 'test', '--', '--watch'], undefined],
    [`node -e "console.log('a; b')"`, ['node', '-e', "console.log('a; b')"], undefined],
    [`echo 'it''s'`, ['echo', 'its'], undefined],
    ['echo a\\ b', ['echo', 'a b'], undefined],
    ['npm test && rm -rf x', ['npm', 'test', '<&&>', 'rm', '-rf', 'x'], undefined],
    ['npm test; rm x', ['npm', 'test', '<;>', 'rm', 'x'], undefined],
    ['npm test | tee log', ['npm', 'test', '<|>', 'tee', 'log'], undefined],
    ['npm test > /etc/passwd', ['npm', 'test', '<>>', '/etc/passwd'], undefined],
    ["npm test '$(not a substitution)'", ['npm', 'test', '$(not a substitution)'], undefined],
    ['npm test "\\$(escaped)"', ['npm', 'test', '$(escaped)'], undefined],
  ])('%j', (line, expected, hazard) => {
    expect(words(line)).toEqual(expected);
    expect(readCommandLine(line).hazard).toBe(hazard);
  });

  test.each([
    ['npm test $(rm -rf x)', 'a command substitution ($(…))'],
    ['npm test "$(rm -rf x)"', 'a command substitution ($(…))'],
    ['npm test `rm -rf x`', 'a command substitution (backticks)'],
    ['npm test $HOME', 'a substitution ($…)'],
    ['npm test\nrm x', 'a newline (it starts another command)'],
    ['npm test \\\nrm x', 'a newline (it starts another command)'],
    ['npm test # rm x', 'a comment (#)'],
    ['echo "oops', 'an unterminated quote'],
    ['cat <(ls)', 'a process substitution (<(…) or >(…))'],
    ['echo ${', 'a substitution ($…)'],
    ['echo "${{ inputs.x }}"', 'a substitution ($…)'],
  ])('%j is read with a hazard', (line, hazard) => {
    expect(readCommandLine(line).hazard).toBe(hazard);
  });

  test('a newline inside quotes is part of a word', () => {
    expect(readCommandLine('git commit -m "a\nb"')).toEqual({
      text: 'git commit -m "a\nb"',
      tokens: [{ word: 'git' }, { word: 'commit' }, { word: '-m' }, { word: 'a\nb' }],
    });
  });
});
