import type { ErrorObject } from 'ajv';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { didYouMean } from '../util/did-you-mean.js';
import { excerpt } from '../util/excerpt.js';
import type { Diagnostic } from './diagnostic.js';
import { pointerSegments, pointerToFieldPath, toPointer } from './diagnostic.js';
import type { DefinitionKind } from './kinds.js';
import type { YamlSource } from './source.js';

type ValidateFn = ((data: unknown) => boolean) & { errors?: ErrorObject[] | null };

let loaded: Record<string, ValidateFn> | undefined;

/**
 * The precompiled validators (engine/generated/validators.cjs, one per schema, named after the
 * schema file: `flow.schema.json` → `Flow`). Loaded on first use, synchronously: a start-up
 * served entirely by the packaged snapshot never parses them.
 */
export function precompiledValidators(): Record<string, ValidateFn> {
  loaded ??= createRequire(import.meta.url)(validatorsFile()) as Record<string, ValidateFn>;
  return loaded;
}

/**
 * Next to this module in the sources and tsc's output; the bundle ships its own copy beside its
 * chunks (`dist/bin/generated/`, loaded with the code cache: cli/boot/chunk-loader.ts).
 */
function validatorsFile(): string {
  return fileURLToPath(new URL('../generated/validators.cjs', import.meta.url));
}

const VALIDATOR_NAMES: Record<DefinitionKind, string> = {
  persona: 'Persona',
  policy: 'Policy',
  backend: 'Backend',
  capability: 'Capability',
  routing: 'Routing',
  flow: 'Flow',
  config: 'Config',
};

/**
 * Validates `value` against any precompiled schema by its generated name (e.g. `Script` for
 * schemas/script.schema.json), with the same positioned diagnostics as definitions.
 */
export function checkAgainstSchema(name: string, value: unknown, source: YamlSource): Diagnostic[] {
  const validate = precompiledValidators()[name];
  if (validate === undefined) throw new Error(`no precompiled schema named ${name}; run npm run gen`);
  if (validate(value)) return [];
  return schemaErrorsToDiagnostics(validate.errors ?? [], source);
}

/**
 * Validates `value` against its kind's schema (precompiled, all errors) and turns every ajv error
 * into a positioned diagnostic: unknown keys point at the key with a did-you-mean, missing fields
 * at the map that lacks them, enum errors list the allowed values.
 */
export function checkSchema(kind: DefinitionKind, value: unknown, source: YamlSource): Diagnostic[] {
  const validate = precompiledValidators()[VALIDATOR_NAMES[kind]]!;
  if (validate(value)) return [];
  return schemaErrorsToDiagnostics(validate.errors ?? [], source);
}

/** Converts ajv errors (from a validator compiled with `verbose: true`) into diagnostics. */
export function schemaErrorsToDiagnostics(errors: readonly ErrorObject[], source: YamlSource): Diagnostic[] {
  const kept = collapseAlternatives(errors);
  const out: Diagnostic[] = [];
  const seen = new Set<string>();
  for (const error of kept) {
    const diagnostic = toDiagnostic(error, source);
    const key = `${diagnostic.code}|${diagnostic.pointer}|${diagnostic.message}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(diagnostic);
  }
  return out;
}

/**
 * For `oneOf`/`anyOf` failures, ajv reports every branch's errors. Keep only the branch whose
 * type matches the value (its errors are the useful ones); when no branch matches, keep a single
 * "must be one of these types" error.
 */
function collapseAlternatives(errors: readonly ErrorObject[]): ErrorObject[] {
  const alternatives = errors.filter((e) => e.keyword === 'oneOf' || e.keyword === 'anyOf');
  if (alternatives.length === 0) return [...errors];
  const dropped = new Set<ErrorObject>();
  for (const alt of alternatives) {
    const branches = (alt.schema as Array<{ type?: string | string[] }>) ?? [];
    const prefix = `${alt.schemaPath.replace(/\/(oneOf|anyOf)$/, '')}/${alt.keyword}/`;
    const inside = errors.filter((e) => e !== alt && e.schemaPath.startsWith(prefix));
    const matching = branches.findIndex((branch) => typeMatches(branch.type, alt.data));
    if (matching >= 0 && inside.some((e) => e.schemaPath.startsWith(`${prefix}${matching}/`))) {
      for (const e of inside) if (!e.schemaPath.startsWith(`${prefix}${matching}/`)) dropped.add(e);
      dropped.add(alt);
    } else {
      for (const e of inside) dropped.add(e);
    }
  }
  return errors.filter((e) => !dropped.has(e));
}

function typeMatches(type: string | string[] | undefined, data: unknown): boolean {
  if (type === undefined) return false;
  const types = Array.isArray(type) ? type : [type];
  return types.some((t) => jsonType(data) === t || (t === 'number' && jsonType(data) === 'integer'));
}

function jsonType(data: unknown): string {
  if (data === null) return 'null';
  if (Array.isArray(data)) return 'array';
  if (typeof data === 'number') return Number.isInteger(data) ? 'integer' : 'number';
  return typeof data;
}

function toDiagnostic(error: ErrorObject, source: YamlSource): Diagnostic {
  const segments = pointerSegments(error.instancePath);
  const field = pointerToFieldPath(error.instancePath);
  const base = { severity: 'error' as const, pointer: error.instancePath };
  const params = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case 'additionalProperties': {
      const key = String(params.additionalProperty);
      const known = Object.keys((error.parentSchema as { properties?: object })?.properties ?? {});
      const suggestion = didYouMean(key, known);
      const where = segments.length === 0 ? '' : ` in \`${field}\``;
      return {
        ...base,
        code: 'DEF_UNKNOWN_KEY',
        message: `unknown key \`${key}\`${where}`,
        pointer: toPointer([...segments, key]),
        span: source.spanOf(source.keyNode(segments, key)),
        hint: suggestion
          ? `did you mean \`${suggestion}\`?`
          : `allowed keys: ${known.join(', ')} (or an \`x-\` key of your own)`,
      };
    }
    case 'required': {
      const missing = String(params.missingProperty);
      const located = source.locate(segments);
      const where = segments.length === 0 ? '' : ` in \`${field}\``;
      // At the top level there is no parent key to point at: point at the first key instead.
      const anchor = segments.length === 0 ? source.firstKey() : (located.key ?? located.node);
      return {
        ...base,
        code: 'DEF_MISSING_FIELD',
        message: `missing required field \`${missing}\`${where}`,
        span: source.spanOf(anchor),
        hint: describe(error.parentSchema, missing),
      };
    }
    case 'enum': {
      const allowed = (params.allowedValues as unknown[]).map((v) => String(v));
      const suggestion = typeof error.data === 'string' ? didYouMean(error.data, allowed) : undefined;
      return {
        ...base,
        code: 'DEF_BAD_VALUE',
        message: `\`${field}\` must be one of ${allowed.join(', ')}; got ${quoted(error.data)}`,
        span: spanAt(source, segments),
        hint: suggestion ? `did you mean \`${suggestion}\`?` : `allowed: ${allowed.join(', ')}`,
      };
    }
    case 'type': {
      const scalar = typeof error.data === 'boolean' || typeof error.data === 'number';
      const quote = params.type === 'string' && scalar && segments.length > 0;
      return {
        ...base,
        code: 'DEF_WRONG_TYPE',
        message: `\`${field}\` must be ${article(String(params.type))}; got ${article(jsonType(error.data))}`,
        span: spanAt(source, segments),
        hint: quote
          ? `quote it to make it text: \`${segments[segments.length - 1]}: "${excerpt(String(error.data), 80)}"\``
          : exampleHint(error.parentSchema),
      };
    }
    case 'oneOf':
    case 'anyOf': {
      const types = ((error.schema as Array<{ type?: string | string[] }>) ?? []).flatMap((b) =>
        b.type === undefined ? [] : [b.type].flat(),
      );
      return {
        ...base,
        code: 'DEF_WRONG_TYPE',
        message: `\`${field}\` must be ${types.map(article).join(' or ')}; got ${article(jsonType(error.data))}`,
        span: spanAt(source, segments),
        hint: exampleHint(error.parentSchema),
      };
    }
    case 'pattern':
      return {
        ...base,
        code: 'DEF_BAD_VALUE',
        message: `\`${field}\` has an invalid format: ${quoted(error.data)}`,
        span: spanAt(source, segments),
        hint: (error.parentSchema as { description?: string })?.description,
      };
    default:
      return {
        ...base,
        code: 'DEF_SCHEMA',
        message: `\`${field}\` ${error.message ?? 'is invalid'}`,
        span: spanAt(source, segments),
        hint: exampleHint(error.parentSchema),
      };
  }
}

function spanAt(source: YamlSource, segments: readonly string[]) {
  return source.spanOf(source.locate(segments).node);
}

function article(type: string): string {
  if (type === 'array') return 'a list';
  if (type === 'object') return 'a map';
  if (type === 'null') return 'null (empty)';
  if (type === 'integer') return 'an integer';
  return `a ${type}`;
}

function describe(parentSchema: unknown, property: string): string | undefined {
  const schema = (parentSchema as { properties?: Record<string, { description?: string; examples?: unknown[] }> })
    ?.properties?.[property];
  if (!schema) return undefined;
  const example = schema.examples?.[0];
  const text = schema.description ?? '';
  return example === undefined
    ? text
    : `${text} e.g. \`${property}: ${typeof example === 'string' ? example : JSON.stringify(example)}\``;
}

function exampleHint(schema: unknown): string | undefined {
  const s = schema as { examples?: unknown[]; description?: string } | undefined;
  if (s?.examples?.[0] !== undefined) return `e.g. ${JSON.stringify(s.examples[0])}`;
  return undefined;
}

/** A value from the file as a message quotes it: JSON, at most 120 characters. */
function quoted(value: unknown): string {
  return excerpt(JSON.stringify(value) ?? String(value), 120);
}
