import { basename, extname } from 'node:path';
import { yamlLib } from './yaml-lib.js';
import { contentHash } from '../util/content-hash.js';
import type { AnyDefinition, Definition, Layer } from './definition.js';
import type { Diagnostic } from './diagnostic.js';
import { splitFrontmatter } from './frontmatter.js';
import { KIND_INFO, type DefinitionKind } from './kinds.js';
import { NOT_TRUSTED, stripUntrusted } from './privileged.js';
import { fileTrust, type ProjectTrust } from './pins.js';
import { readDefinitionText } from './read-text.js';
import { checkSchema } from './schema-check.js';
import { YamlSource } from './source.js';
import { defined } from '../util/defined.js';

/** The result of loading one file: a definition when it is valid, and every problem found. */
export interface FileLoad {
  file: string;
  kind: DefinitionKind;
  layer: Layer;
  definition?: AnyDefinition;
  diagnostics: Diagnostic[];
}

export interface LoadFileOptions {
  kind: DefinitionKind;
  layer: Layer;
  /**
   * False for an untrusted project layer: privileged fields are dropped with a warning. A
   * project layer's {@link ProjectTrust} decides per file (pins.ts).
   */
  trusted: boolean | ProjectTrust;
  /** The id when the file names none (default: the file name). */
  defaultId?: string;
}

/** Reads, parses and validates one definition file. Never throws on bad input. */
export async function loadDefinitionFile(file: string, options: LoadFileOptions): Promise<FileLoad> {
  const read = readDefinitionText(file);
  if ('diagnostic' in read) return { file, kind: options.kind, layer: options.layer, diagnostics: [read.diagnostic] };
  return loadDefinitionText(file, read.text, options);
}

/** {@link loadDefinitionFile} for text already in memory. */
export function loadDefinitionText(file: string, text: string, options: LoadFileOptions): FileLoad {
  const { kind, layer } = options;
  const result: FileLoad = { file, kind, layer, diagnostics: [] };
  const digest = contentHash(text);
  const at0 = { file, start: { line: 1, column: 1, offset: 0 }, end: { line: 1, column: 1, offset: 0 } };

  if (text.trim() === '') {
    result.diagnostics.push({
      code: 'DEF_EMPTY_FILE',
      severity: 'error',
      message: `empty ${kind} file`,
      span: at0,
      hint: emptyHint(kind),
    });
    return result;
  }

  let source: YamlSource;
  let body: string | undefined;
  let position: { lineOffset: number; charOffset: number } | undefined;
  if (KIND_INFO[kind].format === 'markdown') {
    const split = splitFrontmatter(text);
    if (!split.ok) {
      const missing = split.code === 'DEF_FRONTMATTER_MISSING';
      result.diagnostics.push({
        code: split.code,
        severity: 'error',
        message: missing
          ? 'a persona file must start with YAML frontmatter (`---`)'
          : 'frontmatter is not closed: no `---` line ends it',
        span: { file, start: at0.start, end: { line: 1, column: split.endOffset + 1, offset: split.endOffset } },
        hint: missing
          ? 'start the file with `---`, then `description: …`, then `---`, then the instructions'
          : 'add a line with just `---` after the frontmatter',
      });
      return result;
    }
    position = { lineOffset: split.split.yamlLineOffset, charOffset: split.split.yamlOffset };
    source = new YamlSource(file, split.split.yaml, position);
    body = split.split.body;
    const lenient = source.syntaxDiagnostics().some((d) => d.severity === 'error')
      ? quotePlainColonValues(split.split.yaml)
      : undefined;
    if (lenient !== undefined) {
      const retry = new YamlSource(file, lenient.text, position);
      if (!retry.syntaxDiagnostics().some((d) => d.severity === 'error')) {
        source = retry;
        for (const line of lenient.lines) {
          result.diagnostics.push({
            code: 'DEF_FRONTMATTER_LENIENT',
            severity: 'warning',
            message: `\`${line.key}\` holds \`: \`, which YAML reads as a nested map; read as plain text, as Claude Code does`,
            span: retry.span(line.offset, line.offset + line.key.length),
            hint: `quote the value or write it as a block (\`${line.key}: >\`) to silence this`,
          });
        }
      }
    }
  } else {
    source = new YamlSource(file, text);
  }

  const syntax = source.syntaxDiagnostics();
  result.diagnostics.push(...syntax);
  if (syntax.some((d) => d.severity === 'error')) return result;

  const converted = source.toValue();
  if ('diagnostic' in converted) {
    result.diagnostics.push(converted.diagnostic);
    return result;
  }
  const value = converted.value;
  if (!yamlLib().isMap(source.doc.contents) || value === null || typeof value !== 'object' || Array.isArray(value)) {
    const markdown = KIND_INFO[kind].format === 'markdown';
    result.diagnostics.push({
      code: markdown ? 'DEF_FRONTMATTER_NOT_MAP' : 'DEF_NOT_A_MAP',
      severity: 'error',
      message: `${markdown ? 'frontmatter' : `a ${kind} file`} must be a map of keys, got ${describeValue(value)}`,
      span: source.spanOf(source.doc.contents),
      hint: emptyHint(kind),
    });
    return result;
  }

  if (kind === 'flow' && isScript(value)) {
    result.diagnostics.push({
      code: 'DEF_SCRIPT_IN_FLOWS',
      severity: 'error',
      message: 'this is a script for the script backend (`turns:`), not a flow, in a folder neo reads flows from',
      span: source.spanOf(source.doc.contents),
      hint: 'move it to a subfolder (`scripts/fix.yaml` beside the flow), which neo does not read as flows, and name it in the step: `script: scripts/fix.yaml`',
    });
    return result;
  }

  const schemaDiagnostics = checkSchema(kind, value, source);
  result.diagnostics.push(...schemaDiagnostics);
  if (schemaDiagnostics.length > 0) return result;

  const trust =
    options.trusted === true
      ? ({ trusted: true } as const)
      : options.trusted === false
        ? ({ trusted: false, reason: NOT_TRUSTED } as const)
        : fileTrust(options.trusted, file, kind, value as Record<string, unknown>);
  const stripped = trust.trusted
    ? { data: value, ignored: [], diagnostics: [] }
    : stripUntrusted(kind, value as Record<string, unknown>, source, trust.reason);
  result.diagnostics.push(...stripped.diagnostics);
  if (stripped.data === undefined) return result;

  const parsed = { text: source.text, position };
  const idKey = kind === 'persona' || kind === 'flow' ? 'name' : 'id';
  const record = stripped.data as Record<string, unknown>;
  const id = typeof record[idKey] === 'string' ? (record[idKey] as string) : (options.defaultId ?? fileId(file));
  const idNode = source.locate([idKey]);
  const idSpan = idNode.depth === 1 && yamlLib().isScalar(idNode.node) ? source.spanOf(idNode.node) : source.span(0, 0);

  result.definition = makeDefinition(
    {
      kind,
      id,
      layer,
      file,
      data: stripped.data,
      body,
      idSpan,
      digest,
      trusted: trust.trusted,
      ignoredFields: stripped.ignored,
      ...defined({
        untrustedBecause: trust.trusted || trust.reason === NOT_TRUSTED ? undefined : trust.reason.because,
      }),
    },
    // Parsed again if a diagnostic ever needs a position, not kept: a set holds hundreds of
    // definitions, and keeping every parsed document alive made the loader's garbage collection
    // a fifth of a large load (docs/architecture.md, "Performance notes").
    () => new YamlSource(file, parsed.text, parsed.position),
  );
  return result;
}

/**
 * Builds a definition whose parsed source is produced on first use. Definitions restored from
 * the packaged snapshot never parse their YAML unless a diagnostic needs a position.
 */
export function makeDefinition(
  fields: Omit<Definition, 'source' | 'body' | 'data'> & { data: unknown; body: string | undefined },
  source: () => YamlSource,
): AnyDefinition {
  let parsed: YamlSource | undefined;
  const { body, ...rest } = fields;
  const definition = { ...rest, ...defined({ body }) } as Record<string, unknown>;
  Object.defineProperty(definition, 'source', { enumerable: false, get: () => (parsed ??= source()) });
  return definition as unknown as AnyDefinition;
}

/** Parses a definition's YAML (the frontmatter for Markdown) for positions only. */
export function sourceOf(file: string, text: string, kind: DefinitionKind): YamlSource {
  if (KIND_INFO[kind].format !== 'markdown') return new YamlSource(file, text);
  const split = splitFrontmatter(text);
  if (!split.ok) return new YamlSource(file, '');
  return new YamlSource(file, split.split.yaml, {
    lineOffset: split.split.yamlLineOffset,
    charOffset: split.split.yamlOffset,
  });
}

/**
 * Claude Code's agent generator writes one-line descriptions such as
 * `description: Use this agent when… Examples: <example>Context: …` without quotes. That is not
 * YAML, but Claude Code reads it as text; so does neo: top-level plain values containing `: ` are
 * single-quoted and the frontmatter re-parsed. Undefined when there is nothing to repair.
 */
function quotePlainColonValues(
  yaml: string,
): { text: string; lines: Array<{ key: string; offset: number }> } | undefined {
  const lines: Array<{ key: string; offset: number }> = [];
  let offset = 0;
  const out = yaml.split('\n').map((line) => {
    const here = offset;
    offset += line.length + 1;
    const match = /^([A-Za-z_][\w-]*):[ \t]+(.*?)(\r?)$/.exec(line);
    if (!match) return line;
    const [, key, value, cr] = match as unknown as [string, string, string, string];
    if (!/:\s/.test(value) || /^['"[{|>&*!#]/.test(value)) return line;
    lines.push({ key, offset: here });
    return `${key}: '${value.replace(/'/g, "''")}'${cr}`;
  });
  return lines.length === 0 ? undefined : { text: out.join('\n'), lines };
}

/** The id a file gets when it names none: its base name without extension(s). */
export function fileId(file: string): string {
  let name = basename(file);
  for (const suffix of ['.flow.yaml', '.flow.yml']) if (name.endsWith(suffix)) return name.slice(0, -suffix.length);
  name = name.slice(0, name.length - extname(name).length);
  return name;
}

function describeValue(value: unknown): string {
  if (value === null || value === undefined) return 'nothing';
  if (Array.isArray(value)) return 'a list';
  return `a ${typeof value}`;
}

function emptyHint(kind: DefinitionKind): string {
  switch (kind) {
    case 'persona':
      return 'a persona needs at least `description:` in its frontmatter';
    case 'flow':
      return 'a flow needs `name:` and `steps:`';
    default:
      return `see \`neo schema ${kind}\` for the fields`;
  }
}

/** A scripted agent's file (schemas/script.schema.json: `turns:`, never a flow's `steps:`). */
function isScript(value: object): boolean {
  return 'turns' in value && !('steps' in value);
}
