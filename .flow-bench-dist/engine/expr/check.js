import { EXPRESSION_FUNCTIONS, FUNCTION_ARITY } from './functions.js';
import { didYouMean } from '../util/did-you-mean.js';
/** Statically checks names in an expression against its scope. Offsets are expression-relative. */
export function checkExpression(expr, scope) {
    const problems = [];
    visit(expr, scope, problems);
    return problems;
}
function visit(expr, scope, problems) {
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
                    hint: suggestion ? `did you mean \`${suggestion}()\`?` : `available: ${Object.keys(EXPRESSION_FUNCTIONS).join(', ')}`,
                });
            }
            else {
                const [min, max] = FUNCTION_ARITY[expr.name];
                if (expr.args.length < min || expr.args.length > max) {
                    problems.push({
                        code: 'DEF_EXPR_ARITY',
                        message: `\`${expr.name}()\` takes ${min === max ? min : `${min} to ${max}`} argument${max === 1 ? '' : 's'}, got ${expr.args.length}`,
                        start: expr.start,
                        end: expr.end,
                    });
                }
            }
            for (const arg of expr.args)
                visit(arg, scope, problems);
            return;
        }
        case 'path':
            checkPath(expr, scope, problems);
            for (const segment of expr.segments)
                if (segment.kind === 'index')
                    visit(segment.expr, scope, problems);
    }
}
function checkPath(expr, scope, problems) {
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
    if (first?.kind !== 'name')
        return;
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
        }
        else if (scope.reachableSteps !== undefined && !scope.reachableSteps.includes(first.name)) {
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
