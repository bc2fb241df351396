import { describe, expect, it } from 'vitest';
import {
  commandMatchesRule,
  commandRuleProblem,
  commandTouchesRule,
  readCommandArgv,
  readCommandLine,
} from '../../../engine/posture/index.js';

const allows = (rule: string, line: string) => commandMatchesRule(rule, readCommandLine(line));

describe('an allow rule matches exactly that command', () => {
  it.each([
    ['node --test*', 'node --test'],
    ['node --test*', 'node --test test/a.test.js'],
    ['node --test*', 'node --test-only'],
    ['node --test *', 'node --test'],
    ['node --test *', 'node --test a.js b.js'],
    ['npm test', 'npm test'],
    ['npm test', '  npm   test '],
    ['npm test', "npm 'test'"],
    ['git diff --stat', 'git diff --stat'],
    ['npx vitest run *', 'npx vitest run tests/unit/a.test.ts'],
    ['cat *.md', 'cat README.md'],
    ['npm test 2>&1', 'npm test 2>&1'],
    ['npm test | tee out.log', 'npm test | tee out.log'],
    ['node --test *', 'node --test test/*.test.js'],
  ])('%s allows %j', (rule, line) => {
    expect(allows(rule, line)).toBe(true);
  });

  it.each([
    ['node --test*', 'node --test; touch X'],
    ['node --test*', 'node --test && touch X'],
    ['node --test*', 'node --test || touch X'],
    ['node --test*', 'node --test $(touch X)'],
    ['node --test*', 'node --test "$(touch X)"'],
    ['node --test*', 'node --test `touch X`'],
    ['node --test*', 'node --test "`touch X`"'],
    ['node --test*', 'node --test\ntouch X'],
    ['node --test*', 'node --test\rtouch X'],
    ['node --test*', 'node --test > X'],
    ['node --test*', 'node --test >> X'],
    ['node --test*', 'node --test < /etc/passwd'],
    ['node --test*', 'node --test 2>&1'],
    ['node --test*', 'node --test | sh'],
    ['node --test*', 'node --test & touch X'],
    ['node --test*', 'node --test <(touch X)'],
    ['node --test*', 'node --test $HOME'],
    ['node --test*', 'node --test ${X:-y}'],
    ['node --test*', 'node --test # comment'],
    ['node --test*', 'node --test "unterminated'],
    ['node --test*', 'node --inspect --test'],
    ['node --test*', 'X=1 node --test'],
    ['npm test', 'npm test -- --watch'],
    ['npm test', 'npm tests'],
    ['npm test', 'npm'],
    ['npm test', ''],
    ['cat README.md', 'cat READ*'],
    ['npm test | tee out.log', 'npm test | tee other.log'],
    ['npm test | tee out.log', 'npm test ; tee out.log'],
    ['echo $(date)', 'echo $(date)'],
  ])('%s refuses %j', (rule, line) => {
    expect(allows(rule, line)).toBe(false);
  });

  it('reads a shell wrapper argv as the script it runs, and other argv as exact words', () => {
    expect(commandMatchesRule('npm test', readCommandArgv(['bash', '-lc', 'npm test']))).toBe(true);
    expect(commandMatchesRule('npm test', readCommandArgv(['bash', '-lc', 'npm test; rm -rf x']))).toBe(false);
    expect(commandMatchesRule('npm test', readCommandArgv(['npm', 'test']))).toBe(true);
    // Run without a shell, `;` is just an argument: the rule still does not take an extra word.
    expect(commandMatchesRule('npm test', readCommandArgv(['npm', 'test', ';', 'rm']))).toBe(false);
  });

  it('says why a rule can never match', () => {
    expect(commandRuleProblem('echo $(date)')).toMatch(/substitution/);
    expect(commandRuleProblem('')).toBe('the rule is empty');
    expect(commandRuleProblem('npm test')).toBeUndefined();
  });
});

describe('a deny rule meets any piece of a command', () => {
  it.each([
    ['rm -r', 'rm -rf x'],
    ['rm -r', 'npm test && rm -rf x'],
    ['rm -r', 'echo "$(rm -rf x)"'],
    ['rm -r', 'sudo rm -rf x'],
    ['rm -r', 'X=1 rm -rf x'],
    ['rm -r', 'bash -c "rm -rf x"'],
    ['git push', 'git status; git push origin main'],
    ['curl', 'echo `curl evil`'],
  ])('%s denies %j', (rule, line) => {
    expect(commandTouchesRule(rule, readCommandLine(line))).toBe(true);
  });

  it('lets an unrelated command through', () => {
    expect(commandTouchesRule('git push', readCommandLine('git status'))).toBe(false);
  });
});
