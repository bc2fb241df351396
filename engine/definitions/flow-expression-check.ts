/**
 * The expression half of a flow's check: which fields hold `${{ }}` and are evaluated, each one
 * parsed and checked against the names in scope, problems located inside the YAML scalar.
 */
import type { Node } from 'yaml';
import { yamlLib } from './yaml-lib.js';
import {
  checkExpression,
  parseExpression,
  parseTemplate,
  type ExprProblem,
  type ExpressionScope,
} from '../expr/index.js';
import type { Flow, Step } from '../generated/flow.js';
import { defined } from '../util/defined.js';
import type { Diagnostic, SourceSpan } from './diagnostic.js';
import { pointerToFieldPath, toPointer } from './diagnostic.js';
import type { YamlSource } from './source.js';

/** Where a string holds `${{` in a field neo never evaluates (segments of each). */
export function unevaluatedExpressions(flow: Flow): Array<Array<string | number>> {
  const out: Array<Array<string | number>> = [];
  const walk = (value: unknown, segments: Array<string | number>): void => {
    const last = segments[segments.length - 1];
    if (typeof last === 'string' && (last === 'description' || last.startsWith('x-'))) return;
    if (typeof value === 'string') {
      if (value.includes('${{') && !evaluatedOrReported(segments)) out.push(segments);
    } else if (Array.isArray(value)) value.forEach((item, i) => walk(item, [...segments, i]));
    else if (value !== null && typeof value === 'object')
      for (const [key, inner] of Object.entries(value)) walk(inner, [...segments, key]);
  };
  walk(flow, []);
  return out;
}

/** Whether a field is rendered at run time (or its `${{ }}` is already refused as DEF_EXPR_IN_RUN). */
function evaluatedOrReported(segments: ReadonlyArray<string | number>): boolean {
  const [first, , ...rest] = segments;
  if (first === 'env') return segments.length === 2;
  if (first !== 'steps' && first !== 'finally') return false;
  const path = rest.join('.');
  return (
    [
      'brief',
      'script',
      'if',
      'loop.until',
      'foreach.items',
      'approval.prompt',
      'run',
      'verify',
      'verify.run',
      'loop.untilRun',
    ].includes(path) ||
    (rest[0] === 'env' && rest.length === 2) ||
    rest[0] === 'inputs'
  );
}

/** Every string field of a step that may hold expressions: [segments, text, bare-expression?]. */
export function expressionFields(step: Step): Array<[Array<string | number>, string, boolean]> {
  const out: Array<[Array<string | number>, string, boolean]> = [];
  if (step.brief !== undefined) out.push([['brief'], step.brief, false]);
  if (step.script !== undefined) out.push([['script'], step.script, false]);
  if (step.if !== undefined) out.push([['if'], step.if, !step.if.includes('${{')]);
  if (step.loop?.until !== undefined) out.push([['loop', 'until'], step.loop.until, !step.loop.until.includes('${{')]);
  if (typeof step.foreach?.items === 'string') out.push([['foreach', 'items'], step.foreach.items, false]);
  if (step.approval?.prompt !== undefined) out.push([['approval', 'prompt'], step.approval.prompt, false]);
  for (const [key, value] of Object.entries(step.env ?? {}))
    if (typeof value === 'string') out.push([['env', key], value, false]);
  const walk = (value: unknown, segments: Array<string | number>) => {
    if (typeof value === 'string') out.push([segments, value, false]);
    else if (Array.isArray(value)) value.forEach((item, i) => walk(item, [...segments, i]));
    else if (value !== null && typeof value === 'object')
      for (const [k, v] of Object.entries(value)) walk(v, [...segments, k]);
  };
  if (step.inputs !== undefined) walk(step.inputs, ['inputs']);
  return out;
}

export function checkExpressionField(
  sourceOf: () => YamlSource,
  segments: Array<string | number>,
  text: string,
  scope: ExpressionScope,
  bare: boolean,
): Diagnostic[] {
  const problems: Array<ExprProblem & { offset: number }> = [];
  if (bare) {
    const parsed = parseExpression(text);
    if ('problem' in parsed) problems.push({ ...parsed.problem, offset: 0 });
    else problems.push(...checkExpression(parsed.expr, scope).map((p) => ({ ...p, offset: 0 })));
  } else {
    const template = parseTemplate(text);
    problems.push(...template.problems.map((p) => ({ ...p, offset: 0 })));
    for (const piece of template.pieces) {
      if (typeof piece === 'string') continue;
      problems.push(...checkExpression(piece.expr, scope).map((p) => ({ ...p, offset: piece.exprOffset })));
    }
  }
  if (problems.length === 0) return [];
  const source = sourceOf();
  const node = source.locate(segments.map(String)).node;
  return problems.map((problem) => ({
    code: problem.code,
    severity: 'error' as const,
    message: `in \`${pointerToFieldPath(toPointer(segments))}\`: ${problem.message}`,
    span: spanInside(source, node, text, problem.offset + problem.start, problem.offset + problem.end),
    pointer: toPointer(segments),
    ...defined({ hint: problem.hint }),
  }));
}

/**
 * The file span of characters [start, end) of a scalar's value. Exact when the value appears
 * verbatim in the source (plain and simple quoted scalars); the whole node otherwise.
 */
function spanInside(source: YamlSource, node: Node | null, value: string, start: number, end: number): SourceSpan {
  if (!yamlLib().isScalar(node) || !node.range) return source.spanOf(node);
  const raw = source.text.slice(node.range[0], node.range[1]);
  const at = raw.indexOf(value);
  if (at === -1) {
    // Block scalars fold lines: find the expression text itself instead.
    const piece = value.slice(start, end);
    const pieceAt = raw.indexOf(piece);
    if (pieceAt === -1 || piece === '') return source.spanOf(node);
    return source.span(node.range[0] + pieceAt, node.range[0] + pieceAt + piece.length);
  }
  return source.span(node.range[0] + at + start, node.range[0] + at + end);
}
