import type { Expr, ExprProblem } from './ast.js';
import { parseExpression } from './parser.js';

/** One `${{ … }}` found in a string. `start`/`end` cover the whole `${{ … }}`. */
export interface TemplatePart {
  expr: Expr;
  /** Offset of the expression text inside the template string. */
  exprOffset: number;
  start: number;
  end: number;
}

export interface ParsedTemplate {
  /** Literal text and expressions in order. */
  pieces: Array<string | TemplatePart>;
  problems: ExprProblem[];
}

/** True when the string contains a `${{` opener. */
export function hasExpression(text: string): boolean {
  return text.includes('${{');
}

/**
 * Splits a string into literal text and parsed expressions. Problem offsets are relative to the
 * template string, so callers can map them to a file position.
 */
export function parseTemplate(text: string): ParsedTemplate {
  const pieces: Array<string | TemplatePart> = [];
  const problems: ExprProblem[] = [];
  let cursor = 0;
  for (;;) {
    const open = text.indexOf('${{', cursor);
    if (open === -1) break;
    const close = text.indexOf('}}', open + 3);
    if (close === -1) {
      problems.push({
        code: 'DEF_EXPR_SYNTAX',
        message: 'unterminated `${{`: add the closing `}}`',
        start: open,
        end: text.length,
      });
      break;
    }
    if (open > cursor) pieces.push(text.slice(cursor, open));
    const exprOffset = open + 3;
    const parsed = parseExpression(text.slice(exprOffset, close));
    if ('problem' in parsed) {
      problems.push({
        ...parsed.problem,
        start: parsed.problem.start + exprOffset,
        end: parsed.problem.end + exprOffset,
      });
    } else {
      pieces.push({ expr: parsed.expr, exprOffset, start: open, end: close + 2 });
    }
    cursor = close + 2;
  }
  if (cursor < text.length) pieces.push(text.slice(cursor));
  return { pieces, problems };
}
