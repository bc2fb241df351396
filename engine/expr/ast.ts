/** The syntax tree of a `${{ }}` expression. Offsets are relative to the expression text. */
export type Expr =
  | { type: 'literal'; value: string | number | boolean | null; start: number; end: number }
  | { type: 'path'; root: string; segments: PathSegment[]; start: number; end: number }
  | { type: 'call'; name: string; args: Expr[]; start: number; end: number }
  | { type: 'unary'; op: '!'; operand: Expr; start: number; end: number }
  | { type: 'binary'; op: BinaryOp; left: Expr; right: Expr; start: number; end: number };

export type BinaryOp = '==' | '!=' | '<' | '>' | '<=' | '>=' | '&&' | '||';

/** A `.name` or `[expr]` step into a value. */
export type PathSegment = { kind: 'name'; name: string } | { kind: 'index'; expr: Expr };

/** A problem in an expression, positioned inside the expression text. */
export interface ExprProblem {
  code: string;
  message: string;
  start: number;
  end: number;
  hint?: string;
}
