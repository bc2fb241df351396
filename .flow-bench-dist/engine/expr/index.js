export { parseExpression } from './parser.js';
export { parseTemplate, hasExpression } from './template.js';
export { checkExpression } from './check.js';
export { evaluate, renderTemplate, truthy, ExpressionError } from './evaluate.js';
export { EXPRESSION_FUNCTIONS, toText, looseEquals } from './functions.js';
