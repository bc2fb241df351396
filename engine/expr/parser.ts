import type { BinaryOp, Expr, ExprProblem, PathSegment } from './ast.js';
import { tokenize, type Token } from './lexer.js';

const COMPARISONS = new Set(['==', '!=', '<', '>', '<=', '>=']);

/** Parses one expression (the text between `${{` and `}}`). Never throws. */
export function parseExpression(text: string): { expr: Expr } | { problem: ExprProblem } {
  const tokens = tokenize(text);
  if (!Array.isArray(tokens)) return { problem: tokens };
  const parser = new Parser(tokens);
  try {
    const expr = parser.parseOr();
    const next = parser.peek();
    if (next.kind !== 'eof') throw problemAt(next, `unexpected \`${text.slice(next.start, next.end)}\``);
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

class Parser {
  #pos = 0;
  constructor(private readonly tokens: Token[]) {}

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
      const operand = this.#parseUnary();
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
          const inner = this.parseOr();
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
        args.push(this.parseOr());
        while (this.#isOp(',')) {
          this.#next();
          args.push(this.parseOr());
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
        this.#next();
        const expr = this.parseOr();
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
