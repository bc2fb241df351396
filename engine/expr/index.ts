/** The `${{ }}` expression language: parse, check statically, evaluate. Pure; no I/O. */
export type { Expr, ExprProblem, PathSegment, BinaryOp } from './ast.js';
export { parseExpression } from './parser.js';
export { parseTemplate, hasExpression, type TemplatePart, type ParsedTemplate } from './template.js';
export { checkExpression, type ExpressionScope } from './check.js';
export { evaluate, renderTemplate, truthy, ExpressionError, type ExpressionContext } from './evaluate.js';
export { EXPRESSION_FUNCTIONS, toText, looseEquals } from './functions.js';
