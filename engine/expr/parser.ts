import type { BinaryOp, Expr, ExprProblem, PathSegment } from './ast.js';
import { tokenize, type Token } from './lexer.js';

const COMPARISONS = new Set(['==', '!=', '<', '>', '<=', '>=']);

/** Longest expression text (between `${{` and `}}`) accepted. */
export const MAX_EXPRESSION_LENGTH = 4096;

/**
 * Deepest expression tree accepted: each operator of a chain (`a || b || c` is two), each `!`,
 * call and bracket adds a level. Checking, evaluating and describing an expression recurse over
 * the tree; the bound keeps that far from the stack's limit whatever a definition holds.
 */
export const MAX_EXPRESSION_DEPTH = 64;

/** Parses one expression (the text between `${{` and `}}`). Never throws. */
export function parseExpression(text: string): { expr: Expr } | { problem: ExprProblem } {
  if (text.length > MAX_EXPRESSION_LENGTH) {
    return {
      problem: {
        code: 'DEF_EXPR_TOO_LONG',
        message: `expression is ${text.length} characters long; the limit is ${MAX_EXPRESSION_LENGTH}`,
        start: MAX_EXPRESSION_LENGTH,
        end: text.length,
        hint: 'compute the value in an earlier step (a `run:` step or an output) and refer to it',
      },
    };
  }
  const tokens = tokenize(text);
  if (!Array.isArray(tokens)) return { problem: tokens };
  const parser = new Parser(tokens);
  try {
    const expr = parser.parseOr();
    const next = parser.peek();
    if (next.kind !== 'eof') throw problemAt(next, `unexpected \`${text.slice(next.start, next.end)}\``);
    const deep = firstTooDeep(expr);
    if (deep !== undefined) throw tooDeep(deep.start, deep.end);
    return { expr };
  } catch (error) {
    if (isProblem(error)) return { problem: error };
    throw error;
  }
}

function isProblem(value: unknown): value is ExprProblem {
  return typeof value === 'object' && value !== null && 'code' in value && 'start' in value;
}

function problemAt(token: Token, message: string): ExprProblem {
  return { code: 'DEF_EXPR_SYNTAX', message, start: token.start, end: Math.max(token.end, token.start + 1) };
}

function tooDeep(start: number, end: number): ExprProblem {
  return {
    code: 'DEF_EXPR_TOO_DEEP',
    message: `expression nests more than ${MAX_EXPRESSION_DEPTH} levels deep here`,
    start,
    end: Math.max(end, start + 1),
    hint: 'a long `a || b || …` chain reads better as `contains(list, x)`; or compute part of it in an earlier step',
  };
}

/** The first node of `root` deeper than {@link MAX_EXPRESSION_DEPTH}, found without recursion. */
function firstTooDeep(root: Expr): Expr | undefined {
  const stack: Array<[Expr, number]> = [[root, 1]];
  while (stack.length > 0) {
    const [expr, depth] = stack.pop()!;
    if (depth > MAX_EXPRESSION_DEPTH) return expr;
    for (const child of children(expr)) stack.push([child, depth + 1]);
  }
  return undefined;
}

function children(expr: Expr): Expr[] {
  switch (expr.type) {
    case 'literal':
      return [];
    case 'unary':
      return [expr.operand];
    case 'binary':
      return [expr.left, expr.right];
    case 'call':
      return expr.args;
    case 'path':
      return expr.segments.flatMap((segment) => (segment.kind === 'index' ? [segment.expr] : []));
  }
}

class Parser {
  #pos = 0;
  /** How many parentheses, `!`, calls and brackets enclose the token being read. */
  #nesting = 0;
  constructor(private readonly tokens: Token[]) {}

  /**
   * Reads something enclosed by `token`, refusing nesting past the depth bound before the
   * parser's own recursion could exhaust the stack (`((((…` is 4,096 levels in 4 KB).
   */
  #nested<T>(token: Token, read: () => T): T {
    if (++this.#nesting > MAX_EXPRESSION_DEPTH) throw tooDeep(token.start, token.end);
    try {
      return read();
    } finally {
      this.#nesting--;
    }
  }

  peek(): Token {
    return this.tokens[this.#pos]!;
  }

  #next(): Token {
    return this.tokens[this.#pos++]!;
  }

  #isOp(text: string): boolean {
    const token = this.peek();
    return token.kind === 'op' && token.text === text;
  }

  #expectOp(text: string): Token {
    const token = this.#next();
    if (token.kind !== 'op' || token.text !== text) throw problemAt(token, `expected \`${text}\``);
    return token;
  }

  parseOr(): Expr {
    let left = this.#parseAnd();
    while (this.#isOp('||')) {
      this.#next();
      const right = this.#parseAnd();
      left = binary('||', left, right);
    }
    return left;
  }

  #parseAnd(): Expr {
    let left = this.#parseComparison();
    while (this.#isOp('&&')) {
      this.#next();
      const right = this.#parseComparison();
      left = binary('&&', left, right);
    }
    return left;
  }

  #parseComparison(): Expr {
    const left = this.#parseUnary();
    const token = this.peek();
    if (token.kind === 'op' && COMPARISONS.has(token.text)) {
      this.#next();
      const right = this.#parseUnary();
      return binary(token.text as BinaryOp, left, right);
    }
    return left;
  }

  #parseUnary(): Expr {
    const token = this.peek();
    if (token.kind === 'op' && token.text === '!') {
      this.#next();
      const operand = this.#nested(token, () => this.#parseUnary());
      return { type: 'unary', op: '!', operand, start: token.start, end: operand.end };
    }
    return this.#parsePrimary();
  }

  #parsePrimary(): Expr {
    const token = this.#next();
    switch (token.kind) {
      case 'string':
        return { type: 'literal', value: token.value, start: token.start, end: token.end };
      case 'number':
        return { type: 'literal', value: token.value, start: token.start, end: token.end };
      case 'ident':
        return this.#parseIdent(token);
      case 'op':
        if (token.text === '(') {
          const inner = this.#nested(token, () => this.parseOr());
          this.#expectOp(')');
          return inner;
        }
        throw problemAt(token, `unexpected \`${token.text}\``);
      case 'eof':
        throw problemAt(token, 'expression ends too early');
    }
  }

  #parseIdent(token: Extract<Token, { kind: 'ident' }>): Expr {
    if (token.text === 'true' || token.text === 'false') {
      return { type: 'literal', value: token.text === 'true', start: token.start, end: token.end };
    }
    if (token.text === 'null') return { type: 'literal', value: null, start: token.start, end: token.end };
    if (this.#isOp('(')) {
      this.#next();
      const args: Expr[] = [];
      if (!this.#isOp(')')) {
        args.push(this.#nested(token, () => this.parseOr()));
        while (this.#isOp(',')) {
          this.#next();
          args.push(this.#nested(token, () => this.parseOr()));
        }
      }
      const close = this.#expectOp(')');
      return { type: 'call', name: token.text, args, start: token.start, end: close.end };
    }
    const segments: PathSegment[] = [];
    let end = token.end;
    for (;;) {
      if (this.#isOp('.')) {
        this.#next();
        const name = this.#next();
        if (name.kind !== 'ident') throw problemAt(name, 'expected a name after `.`');
        segments.push({ kind: 'name', name: name.text });
        end = name.end;
      } else if (this.#isOp('[')) {
        const open = this.#next();
        const expr = this.#nested(open, () => this.parseOr());
        end = this.#expectOp(']').end;
        segments.push({ kind: 'index', expr });
      } else {
        break;
      }
    }
    return { type: 'path', root: token.text, segments, start: token.start, end };
  }
}

function binary(op: BinaryOp, left: Expr, right: Expr): Expr {
  return { type: 'binary', op, left, right, start: left.start, end: right.end };
}
