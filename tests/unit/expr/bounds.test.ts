import { describe, expect, it } from 'vitest';
import { checkExpression, evaluate, parseExpression, parseTemplate } from '../../../engine/expr/index.js';

const chain = (terms: number) => Array.from({ length: terms }, () => 'inputs.a').join(' || ');
const problemOf = (text: string) => {
  const parsed = parseExpression(text);
  return 'problem' in parsed ? parsed.problem : undefined;
};

describe('expression bounds: length and depth are located problems, never a stack overflow', () => {
  it('a 5,000-term `||` (40 KB) is DEF_EXPR_TOO_LONG, located where the limit is crossed', () => {
    const text = chain(5000);
    expect(text.length).toBeGreaterThan(40_000);
    expect(problemOf(text)).toMatchObject({
      code: 'DEF_EXPR_TOO_LONG',
      message: `expression is ${text.length} characters long; the limit is 4096`,
      start: 4096,
      end: text.length,
    });
  });

  it('a chain of 100 terms (under 4 KB) is DEF_EXPR_TOO_DEEP; 64 terms parse, check and evaluate', () => {
    expect(problemOf(chain(100))).toMatchObject({
      code: 'DEF_EXPR_TOO_DEEP',
      message: 'expression nests more than 64 levels deep here',
    });
    const parsed = parseExpression(chain(64));
    if (!('expr' in parsed)) throw new Error(parsed.problem.message);
    expect(checkExpression(parsed.expr, { roots: ['inputs'], inputs: ['a'] })).toEqual([]);
    expect(evaluate(parsed.expr, { inputs: { a: 'x' } })).toBe('x');
  });

  it('nesting by parentheses, `!`, brackets and calls stops at the bound, at the token that crosses it', () => {
    for (const text of [
      `${'('.repeat(2000)}inputs.a${')'.repeat(2000)}`,
      `${'!'.repeat(4000)}inputs.a`,
      `${'inputs['.repeat(500)}0${']'.repeat(500)}`,
      `${'length('.repeat(500)}1${')'.repeat(500)}`,
    ]) {
      const problem = problemOf(text);
      expect(problem?.code, text.slice(0, 20)).toBe('DEF_EXPR_TOO_DEEP');
      expect(problem!.start, text.slice(0, 20)).toBeLessThan(600);
    }
  });

  it('a template reports the problem at its offset in the string', () => {
    const text = `go: \${{ ${chain(100)} }}`;
    const { problems } = parseTemplate(text);
    expect(problems.map((p) => p.code)).toEqual(['DEF_EXPR_TOO_DEEP']);
    expect(problems[0]!.start).toBeGreaterThan(8);
  });
});
