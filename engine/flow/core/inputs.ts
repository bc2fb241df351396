import { didYouMean } from '../../util/did-you-mean.js';
import { excerpt } from '../../util/excerpt.js';
import { inputValueProblem } from './input-value.js';
import type { InputProblem } from './input-problem.js';
import type { InputSpec } from './plan.js';

/**
 * Checks and converts a run's inputs: `--input k=v` strings are converted to the declared type,
 * values from `--inputs file.yaml` must already have it; defaults fill the rest; an unknown
 * name, a missing required input, a wrong type, a value outside `enum`, a NUL byte or nesting
 * too deep is a problem — all found here, before anything of the run starts.
 */
export function resolveInputs(
  specs: Readonly<Record<string, InputSpec>>,
  given: Readonly<Record<string, unknown>>,
  fromText: ReadonlySet<string>,
): { values: Record<string, unknown>; problems: InputProblem[] } {
  const values: Record<string, unknown> = {};
  const problems: InputProblem[] = [];
  const names = Object.keys(specs);
  for (const [name, raw] of Object.entries(given)) {
    const spec = specs[name];
    if (spec === undefined) {
      const suggestion = didYouMean(name, names);
      problems.push({
        code: 'FLOW_INPUT_UNKNOWN',
        message: `unknown input \`${name}\``,
        hint: suggestion
          ? `did you mean \`${suggestion}\`?`
          : names.length > 0
            ? `inputs: ${names.join(', ')}`
            : 'this flow declares no inputs',
      });
      continue;
    }
    const unusable = inputValueProblem(name, raw);
    if (unusable !== undefined) {
      problems.push(unusable);
      continue;
    }
    const converted = fromText.has(name) && typeof raw === 'string' ? convert(raw, spec.type) : raw;
    if (!hasType(converted, spec.type)) {
      problems.push({
        code: 'FLOW_INPUT_TYPE',
        message: `input \`${name}\` must be a ${spec.type}, got ${quoted(raw)}`,
        ...(spec.type === 'list' || spec.type === 'object'
          ? { hint: 'give it as JSON, e.g. --input ' + name + '=\'["a","b"]\'' }
          : {}),
      });
      continue;
    }
    values[name] = converted;
  }
  for (const [name, spec] of Object.entries(specs)) {
    if (Object.hasOwn(values, name) || problems.some((p) => p.message.includes(`\`${name}\``))) continue;
    if (spec.default !== undefined) values[name] = spec.default;
    else
      problems.push({
        code: 'FLOW_INPUT_MISSING',
        message: `input \`${name}\` is required${spec.description ? ` (${spec.description})` : ''}`,
        hint: `pass --input ${name}=<value>`,
      });
  }
  for (const [name, value] of Object.entries(values)) {
    // Again after conversion: `--input k='["a\u0000"]'` becomes a NUL only once parsed as JSON.
    const unusable = inputValueProblem(name, value);
    if (unusable !== undefined) {
      problems.push(unusable);
      continue;
    }
    const allowed = specs[name]?.enum;
    if (allowed !== undefined && !allowed.some((a) => JSON.stringify(a) === JSON.stringify(value))) {
      problems.push({
        code: 'FLOW_INPUT_ENUM',
        message: `input \`${name}\` is ${quoted(value)}, not one of ${allowed.map((a) => JSON.stringify(a)).join(', ')}`,
      });
    }
  }
  return { values, problems };
}

function convert(text: string, type: InputSpec['type']): unknown {
  switch (type) {
    case 'string':
      return text;
    case 'number': {
      const n = Number(text);
      return text.trim() === '' || !Number.isFinite(n) ? text : n;
    }
    case 'boolean': {
      const lower = text.trim().toLowerCase();
      if (['true', 'yes', '1', 'on'].includes(lower)) return true;
      if (['false', 'no', '0', 'off'].includes(lower)) return false;
      return text;
    }
    case 'list':
      if (text.trim().startsWith('[')) return parseJson(text);
      return text
        .split(',')
        .map((item) => item.trim())
        .filter((item) => item !== '');
    case 'object':
      return parseJson(text);
  }
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

function hasType(value: unknown, type: InputSpec['type']): boolean {
  switch (type) {
    case 'string':
      return typeof value === 'string';
    case 'number':
      return typeof value === 'number' && Number.isFinite(value);
    case 'boolean':
      return typeof value === 'boolean';
    case 'list':
      return Array.isArray(value);
    case 'object':
      return value !== null && typeof value === 'object' && !Array.isArray(value);
  }
}

/** A value as a message quotes it: JSON, at most 120 characters. */
function quoted(value: unknown): string {
  return excerpt(JSON.stringify(value) ?? String(value), 120);
}
