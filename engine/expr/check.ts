import type { Expr, ExprProblem } from './ast.js';
import { EXPRESSION_FUNCTIONS, FUNCTION_ARITY, type ExpressionFunctionName } from './functions.js';
import { didYouMean } from '../util/did-you-mean.js';

/** What a given expression may name. */
export interface ExpressionScope {
  /** Roots allowed here (e.g. inputs, steps, env, run, item). */
  roots: readonly string[];
  /** Declared input names, or undefined to skip the check. */
  inputs?: readonly string[];
  /** Every step id in the flow. */
  allSteps?: readonly string[];
  /** Steps this expression may read (the referring step's transitive needs). */
  reachableSteps?: readonly string[];
}

/** Statically checks names in an expression against its scope. Offsets are expression-relative. */
export function checkExpression(expr: Expr, scope: ExpressionScope): ExprProblem[] {
  const problems: ExprProblem[] = [];
  visit(expr, scope, problems);
  return problems;
}

function visit(expr: Expr, scope: ExpressionScope, problems: ExprProblem[]): void {
  switch (expr.type) {
    case 'literal':
      return;
    case 'unary':
      visit(expr.operand, scope, problems);
      return;
    case 'binary':
      visit(expr.left, scope, problems);
      visit(expr.right, scope, problems);
      return;
    case 'call': {
      if (!Object.hasOwn(EXPRESSION_FUNCTIONS, expr.name)) {
        const suggestion = didYouMean(expr.name, Object.keys(EXPRESSION_FUNCTIONS));
        problems.push({
          code: 'DEF_EXPR_UNKNOWN_FUNCTION',
          message: `unknown function \`${expr.name}()\``,
          start: expr.start,
          end: expr.start + expr.name.length,
          hint: suggestion
            ? `did you mean \`${suggestion}()\`?`
            : `available: ${Object.keys(EXPRESSION_FUNCTIONS).join(', ')}`,
        });
      } else {
        const [min, max] = FUNCTION_ARITY[expr.name as ExpressionFunctionName];
        if (expr.args.length < min || expr.args.length > max) {
          problems.push({
            code: 'DEF_EXPR_ARITY',
            message: `\`${expr.name}()\` takes ${min === max ? min : `${min} to ${max}`} argument${max === 1 ? '' : 's'}, got ${expr.args.length}`,
            start: expr.start,
            end: expr.end,
          });
        }
      }
      for (const arg of expr.args) visit(arg, scope, problems);
      return;
    }
    case 'path':
      checkPath(expr, scope, problems);
      for (const segment of expr.segments) if (segment.kind === 'index') visit(segment.expr, scope, problems);
  }
}

function checkPath(expr: Extract<Expr, { type: 'path' }>, scope: ExpressionScope, problems: ExprProblem[]): void {
  if (!scope.roots.includes(expr.root)) {
    const suggestion = didYouMean(expr.root, scope.roots);
    problems.push({
      code: 'DEF_EXPR_UNKNOWN_NAME',
      message: `unknown name \`${expr.root}\``,
      start: expr.start,
      end: expr.start + expr.root.length,
      hint: suggestion ? `did you mean \`${suggestion}\`?` : `names available here: ${scope.roots.join(', ')}`,
    });
    return;
  }
  const first = expr.segments[0];
  if (first?.kind !== 'name') return;
  if (expr.root === 'inputs' && scope.inputs !== undefined && !scope.inputs.includes(first.name)) {
    const suggestion = didYouMean(first.name, scope.inputs);
    problems.push({
      code: 'DEF_EXPR_UNKNOWN_INPUT',
      message: `unknown input \`${first.name}\``,
      start: expr.start,
      end: expr.end,
      hint: suggestion ? `did you mean \`inputs.${suggestion}\`?` : 'declare it under `inputs:`',
    });
  }
  if (expr.root === 'steps' && scope.allSteps !== undefined) {
    if (!scope.allSteps.includes(first.name)) {
      const suggestion = didYouMean(first.name, scope.allSteps);
      problems.push({
        code: 'DEF_EXPR_UNKNOWN_STEP',
        message: `unknown step \`${first.name}\``,
        start: expr.start,
        end: expr.end,
        hint: suggestion ? `did you mean \`steps.${suggestion}\`?` : undefined,
      });
    } else if (scope.reachableSteps !== undefined && !scope.reachableSteps.includes(first.name)) {
      problems.push({
        code: 'DEF_EXPR_STEP_NOT_NEEDED',
        message: `step \`${first.name}\` is read here but is not in this step's needs`,
        start: expr.start,
        end: expr.end,
        hint: `add \`${first.name}\` to \`needs\` so it finishes first`,
      });
    }
  }
}
