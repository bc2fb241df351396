import { isMap, isSeq, type Node } from 'yaml';
import {
  checkAgainstSchema,
  hasErrors,
  readDefinitionText,
  YamlSource,
  type Diagnostic,
} from '../definitions/index.js';
import type { ModelScript, Reply, TextMatch, ToolResultMatch } from '../generated/model-script.js';

/** A parsed script: present only when there are no errors; diagnostics carry file:line:col. */
export interface ScriptLoad {
  script?: ModelScript;
  diagnostics: Diagnostic[];
}

/** Reads and validates a model script file (YAML or JSON). Never throws on bad input. */
export async function loadModelScript(file: string): Promise<ScriptLoad> {
  const read = await readDefinitionText(file);
  if ('diagnostic' in read) return { diagnostics: [read.diagnostic] };
  return parseModelScript(read.text, file);
}

/**
 * Parses and validates a model script held in memory: YAML syntax, the model-script schema
 * (unknown keys with did-you-mean, wrong types, bad enums), then what a schema cannot say —
 * regular expressions that do not compile, turns that say nothing, error turns with content.
 */
export function parseModelScript(text: string, file = '<script>'): ScriptLoad {
  const source = new YamlSource(file, text);
  const diagnostics = source.syntaxDiagnostics();
  if (hasErrors(diagnostics)) return { diagnostics };
  const converted = source.toValue();
  if ('diagnostic' in converted) return { diagnostics: [...diagnostics, converted.diagnostic] };
  const value = converted.value;
  if (value === null || value === undefined) {
    const at = source.span(0, 0);
    return {
      diagnostics: [
        ...diagnostics,
        {
          code: 'MODEL_SCRIPT_EMPTY',
          severity: 'error',
          message: 'the model script is empty',
          span: at,
          hint: 'start with `turns:` and a list of replies, e.g. `- text: Hello`',
        },
      ],
    };
  }
  diagnostics.push(...checkAgainstSchema('ModelScript', value, source));
  if (hasErrors(diagnostics)) return { diagnostics };
  const script = value as ModelScript;
  diagnostics.push(...semanticDiagnostics(script, source));
  return hasErrors(diagnostics) ? { diagnostics } : { script, diagnostics };
}

function semanticDiagnostics(script: ModelScript, source: YamlSource): Diagnostic[] {
  const out: Diagnostic[] = [];
  const at = (segments: Array<string | number>): Node | null => source.locate(segments.map(String)).node;
  const checkRegex = (match: TextMatch | ToolResultMatch | undefined, path: Array<string | number>) => {
    if (match === undefined || typeof match === 'string' || match.matches === undefined) return;
    try {
      new RegExp(match.matches);
    } catch (error) {
      out.push({
        code: 'MODEL_SCRIPT_BAD_REGEX',
        severity: 'error',
        message: `\`${fieldPath([...path, 'matches'])}\` is not a valid regular expression: ${error instanceof Error ? error.message.replace(/^Invalid regular expression: /, '') : String(error)}`,
        span: source.spanOf(at([...path, 'matches'])),
        pointer: `/${[...path, 'matches'].join('/')}`,
        hint: 'JavaScript regular expression syntax; flags such as (?i) are not supported',
      });
    }
  };
  script.turns.forEach((turn, index) => {
    const path = ['turns', index];
    checkRegex(turn.when?.user, [...path, 'when', 'user']);
    checkRegex(turn.when?.model, [...path, 'when', 'model']);
    checkRegex(turn.when?.toolResult, [...path, 'when', 'toolResult']);
    out.push(...replyDiagnostics(turn, path, source));
  });
  if (script.fallback !== undefined) out.push(...replyDiagnostics(script.fallback, ['fallback'], source));
  const turnsNode = at(['turns']);
  if (script.turns.length === 0 && isSeq(turnsNode)) {
    out.push({
      code: 'MODEL_SCRIPT_NO_TURNS',
      severity: 'warning',
      message: 'the script has no turns: every main request gets the fallback',
      span: source.spanOf(turnsNode),
      hint: 'add replies under `turns:`',
    });
  }
  return out;
}

function replyDiagnostics(reply: Reply, path: Array<string | number>, source: YamlSource): Diagnostic[] {
  const node = source.locate(path.map(String)).node;
  const span = source.spanOf(isMap(node) ? node : null);
  const content = reply.text !== undefined || reply.reasoning !== undefined || (reply.tools?.length ?? 0) > 0;
  if (reply.error !== undefined && content) {
    return [
      {
        code: 'MODEL_SCRIPT_ERROR_WITH_CONTENT',
        severity: 'warning',
        message: `\`${fieldPath(path)}\` has an error and content; only the error is sent`,
        span,
        pointer: `/${path.join('/')}`,
        hint: 'put the content in the next turn: a client retries after an error',
      },
    ];
  }
  if (reply.error === undefined && !content && reply.stall === undefined) {
    return [
      {
        code: 'MODEL_SCRIPT_EMPTY_TURN',
        severity: 'warning',
        message: `\`${fieldPath(path)}\` says nothing: the reply is empty`,
        span,
        pointer: `/${path.join('/')}`,
        hint: 'give it `text`, `tools`, `reasoning`, `error` or `stall`',
      },
    ];
  }
  return [];
}

function fieldPath(path: ReadonlyArray<string | number>): string {
  return path.reduce<string>(
    (out, segment) => (typeof segment === 'number' ? `${out}[${segment}]` : out === '' ? segment : `${out}.${segment}`),
    '',
  );
}
