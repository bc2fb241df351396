import { readFile } from 'node:fs/promises';
import {
  checkAgainstSchema,
  hasErrors,
  sortDiagnostics,
  YamlSource,
  type Diagnostic,
} from '../../definitions/index.js';
import type { Action, Script } from '../../generated/script.js';
import { contentHash } from '../../util/content-hash.js';
import { UsageError } from '../../util/errors.js';
import { ACTION_KEYS, actionKeys, toPlan, type ScriptPlan } from './script-model.js';

/** The outcome of checking a script: the plan when it has no errors, and every diagnostic. */
export interface ScriptCheck {
  plan?: ScriptPlan;
  diagnostics: Diagnostic[];
}

/** A script that does not validate; `diagnostics` are positioned (file:line:col). */
export class ScriptInvalidError extends UsageError {
  readonly diagnostics: Diagnostic[];

  constructor(file: string, diagnostics: Diagnostic[]) {
    // One line: where the first problem is and what it is; the command in the hint shows them all.
    const errors = diagnostics.filter((d) => d.severity === 'error');
    const first = errors[0];
    const where = first?.span === undefined ? file : `${file}:${first.span.start.line}:${first.span.start.column}`;
    const more = errors.length > 1 ? ` (and ${errors.length - 1} more)` : '';
    const detail = first === undefined ? '' : `: ${first.message}${first.hint === undefined ? '' : ` (${first.hint})`}`;
    super('TRANSPORT_SCRIPT_INVALID', `script ${where} is invalid${detail}${more}`, {
      hint: `run \`neo script validate ${file}\` for every problem with a code frame`,
    });
    this.diagnostics = diagnostics;
  }
}

/**
 * Parses and validates script text: YAML syntax, the Script schema, then the rules a schema
 * cannot say (exactly one action per item; nothing after an action that ends the turn).
 */
export function checkScriptText(text: string, file: string): ScriptCheck {
  const body = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  const source = new YamlSource(file, body);
  const syntax = source.syntaxDiagnostics();
  if (hasErrors(syntax)) return { diagnostics: sortDiagnostics(syntax) };
  const parsed = source.toValue();
  if ('diagnostic' in parsed) return { diagnostics: [...syntax, parsed.diagnostic] };
  const schema = checkAgainstSchema('Script', parsed.value, source).map(polish);
  const diagnostics = [...syntax, ...schema];
  if (!hasErrors(schema)) diagnostics.push(...checkActions(parsed.value as Script, source));
  const sorted = sortDiagnostics(diagnostics);
  if (hasErrors(sorted)) return { diagnostics: sorted };
  return { plan: toPlan(parsed.value as Script, contentHash(body), file), diagnostics: sorted };
}

/** Reads and checks a script file; an unreadable file is a TRANSPORT_SCRIPT_NOT_FOUND error. */
export async function checkScriptFile(path: string): Promise<ScriptCheck> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    throw new UsageError(
      'TRANSPORT_SCRIPT_NOT_FOUND',
      `cannot read script ${path}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`,
      {
        hint: "a flow step's `script:` is relative to the plan's folder; `neo session start --script` and `neo script play` read it from the working directory",
        cause: error,
      },
    );
  }
  return checkScriptText(text, path);
}

/** The plan, or a ScriptInvalidError carrying every diagnostic. */
export function planOrThrow(check: ScriptCheck, file: string): ScriptPlan {
  if (check.plan === undefined) throw new ScriptInvalidError(file, check.diagnostics);
  return check.plan;
}

/** Plainer words for the few generic schema messages a script author meets. */
function polish(diagnostic: Diagnostic): Diagnostic {
  const message = diagnostic.message
    .replace(/must NOT have fewer than 1 (items|characters)$/, 'must not be empty')
    .replace(/must be a array,object; got/, 'must be a list of actions, or a map with `actions`; got');
  return message === diagnostic.message ? diagnostic : { ...diagnostic, message };
}

const ENDS_TURN = new Set(['fail', 'hang', 'end']);

function checkActions(script: Script, source: YamlSource): Diagnostic[] {
  const out: Diagnostic[] = [];
  script.turns.forEach((turn, t) => {
    const base = Array.isArray(turn) ? ['turns', String(t)] : ['turns', String(t), 'actions'];
    checkList(Array.isArray(turn) ? turn : turn.actions, base, source, out);
  });
  return out;
}

function checkList(actions: readonly Action[], pointer: string[], source: YamlSource, out: Diagnostic[]): void {
  let ender: string | undefined;
  actions.forEach((action, i) => {
    const at = [...pointer, String(i)];
    const keys = actionKeys(action);
    if (ender !== undefined) {
      out.push({
        code: 'DEF_SCRIPT_UNREACHABLE',
        severity: 'warning',
        message: `this action never runs: the \`${ender}\` before it ends the turn`,
        pointer: toPointer(at),
        span: source.spanOf(source.locate(at).node),
        hint: `move it before the \`${ender}\`, or into the next turn`,
      });
      ender = undefined; // one warning per list is enough
      return;
    }
    if (keys.length !== 1) {
      const extra = keys[1];
      out.push({
        code: 'DEF_SCRIPT_ONE_ACTION',
        severity: 'error',
        message:
          keys.length === 0
            ? 'an action item holds no action'
            : `an action item holds ${keys.length} actions (${keys.join(', ')}); write one per item`,
        pointer: toPointer(at),
        span: source.spanOf(extra === undefined ? source.locate(at).node : source.keyNode(at, extra)),
        hint:
          keys.length === 0
            ? `use one of: ${ACTION_KEYS.join(', ')}`
            : `start a new list item (\`- ${extra}: …\`) for the second one`,
      });
      return;
    }
    const key = keys[0]!;
    if (key === 'ask') {
      const ask = action.ask!;
      if (ask.onAllow !== undefined) checkList(ask.onAllow, [...at, 'ask', 'onAllow'], source, out);
      if (ask.onDeny !== undefined) checkList(ask.onDeny, [...at, 'ask', 'onDeny'], source, out);
    }
    if (ENDS_TURN.has(key)) ender = key;
  });
}

function toPointer(segments: readonly string[]): string {
  return segments.map((s) => `/${s.replace(/~/g, '~0').replace(/\//g, '~1')}`).join('');
}
