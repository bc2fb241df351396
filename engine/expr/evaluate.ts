import type { Expr } from './ast.js';
import { EXPRESSION_FUNCTIONS, looseEquals, toText, type ExpressionFunctionName } from './functions.js';
import { parseTemplate } from './template.js';

/** The values an expression can reach: `inputs`, `steps`, `env`, `run`, `item`, `loop`. */
export type ExpressionContext = Readonly<Record<string, unknown>>;

/** Thrown for a runtime problem (a bad fromJSON argument, a missing path is NOT one: it is null). */
export class ExpressionError extends Error {
  readonly code = 'FLOW_EXPRESSION';
}

/** Evaluates a parsed expression. Pure: no eval, no Function, no I/O. */
export function evaluate(expr: Expr, context: ExpressionContext): unknown {
  switch (expr.type) {
    case 'literal':
      return expr.value;
    case 'path': {
      let value: unknown = Object.hasOwn(context, expr.root) ? context[expr.root] : undefined;
      for (const segment of expr.segments) {
        const key = segment.kind === 'name' ? segment.name : evaluate(segment.expr, context);
        value = member(value, key);
      }
      return value ?? null;
    }
    case 'call': {
      const fn = EXPRESSION_FUNCTIONS[expr.name as ExpressionFunctionName] as
        ((...args: unknown[]) => unknown) | undefined;
      if (fn === undefined) throw new ExpressionError(`unknown function ${expr.name}()`);
      const args = expr.args.map((arg) => evaluate(arg, context));
      try {
        return fn(...args);
      } catch (error) {
        throw new ExpressionError(`${expr.name}(): ${error instanceof Error ? error.message : String(error)}`);
      }
    }
    case 'unary':
      return !truthy(evaluate(expr.operand, context));
    case 'binary':
      return evaluateBinary(expr.op, expr.left, expr.right, context);
  }
}

function evaluateBinary(op: string, leftExpr: Expr, rightExpr: Expr, context: ExpressionContext): unknown {
  if (op === '&&') {
    const left = evaluate(leftExpr, context);
    return truthy(left) ? evaluate(rightExpr, context) : left;
  }
  if (op === '||') {
    const left = evaluate(leftExpr, context);
    return truthy(left) ? left : evaluate(rightExpr, context);
  }
  const left = evaluate(leftExpr, context);
  const right = evaluate(rightExpr, context);
  switch (op) {
    case '==':
      return looseEquals(left, right);
    case '!=':
      return !looseEquals(left, right);
    default: {
      const [a, b] =
        typeof left === 'string' && typeof right === 'string' ? [left, right] : [Number(left), Number(right)];
      if (op === '<') return a < b;
      if (op === '>') return a > b;
      if (op === '<=') return a <= b;
      return a >= b;
    }
  }
}

function member(value: unknown, key: unknown): unknown {
  if (value === null || value === undefined) return undefined;
  if (Array.isArray(value))
    return typeof key === 'number' || /^\d+$/.test(String(key)) ? value[Number(key)] : undefined;
  if (typeof value === 'object') {
    const name = String(key);
    return Object.hasOwn(value, name) ? (value as Record<string, unknown>)[name] : undefined;
  }
  return undefined;
}

/** Truthiness: false, 0, '', null and undefined are false. */
export function truthy(value: unknown): boolean {
  return !(value === false || value === 0 || value === '' || value === null || value === undefined);
}

/**
 * Renders a template string: a string that is exactly one `${{ }}` yields the raw value (so a list
 * stays a list); otherwise each expression is turned into text.
 */
export function renderTemplate(text: string, context: ExpressionContext): unknown {
  const { pieces, problems } = parseTemplate(text);
  if (problems.length > 0) throw new ExpressionError(problems[0]!.message);
  if (pieces.length === 1 && typeof pieces[0] !== 'string') return evaluate(pieces[0]!.expr, context);
  return pieces.map((piece) => (typeof piece === 'string' ? piece : toText(evaluate(piece.expr, context)))).join('');
}
