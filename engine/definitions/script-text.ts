/**
 * The check of a script for the script backend, over its text: YAML syntax, the Script schema,
 * then the rules a schema cannot say (exactly one action per item; nothing after an action that
 * ends the turn). Here, below the transport, so that a flow's check can say a step's script is
 * invalid before a run starts, and the backend loads a script by the same rules.
 */
import type { Action, Script } from '../generated/script.js';
import { readRegularFile } from '../util/regular-file.js';
import { hasErrors, sortDiagnostics, toPointer, type Diagnostic } from './diagnostic.js';
import { checkAgainstSchema } from './schema-check.js';
import { YamlSource } from './source.js';

/** Every action key a script item may hold. */
export const ACTION_KEYS = [
  'say',
  'think',
  'write',
  'edit',
  'delete',
  'rename',
  'run',
  'ask',
  'fail',
  'hang',
  'end',
] as const;

/** The action key an item holds (x- keys are notes, not actions). */
function actionKeys(action: object): string[] {
  return Object.keys(action).filter((key) => !key.startsWith('x-'));
}

/** Every diagnostic of a script's text, sorted; the script itself when it has no errors. */
export function checkScriptSource(text: string, file: string): { diagnostics: Diagnostic[]; script?: Script } {
  const source = new YamlSource(file, text.charCodeAt(0) === 0xfeff ? text.slice(1) : text);
  const syntax = source.syntaxDiagnostics();
  if (hasErrors(syntax)) return { diagnostics: sortDiagnostics(syntax) };
  const parsed = source.toValue();
  if ('diagnostic' in parsed) return { diagnostics: [...syntax, parsed.diagnostic] };
  const schema = checkAgainstSchema('Script', parsed.value, source).map(polish);
  const diagnostics = [...syntax, ...schema];
  if (!hasErrors(schema)) diagnostics.push(...checkActions(parsed.value as Script, source));
  const sorted = sortDiagnostics(diagnostics);
  return hasErrors(sorted) ? { diagnostics: sorted } : { diagnostics: sorted, script: parsed.value as Script };
}

/** Whether a file holds a script for the script backend (a map with `turns:` and no `steps:`), for a hint. */
export function looksLikeScript(file: string): boolean {
  const bytes = readRegularFile(file, 1 << 20);
  if (bytes === undefined || bytes === 'missing') return false;
  const parsed = new YamlSource(file, bytes.toString('utf8')).toValue();
  if ('diagnostic' in parsed) return false;
  const value = parsed.value;
  return typeof value === 'object' && value !== null && 'turns' in value && !('steps' in value);
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
