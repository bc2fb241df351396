import { isRecord } from './request-view.js';

/**
 * Builds a JSON value that satisfies a (simple) JSON schema, for auxiliary requests that ask for
 * structured output: Claude Code's title generator asks for `{title}` and must get an object back.
 * Strings get `text`; enums and consts their first value; numbers their minimum or 0.
 */
export function sampleFromSchema(schema: unknown, text: string, depth = 0): unknown {
  if (!isRecord(schema) || depth > 8) return text;
  if ('const' in schema) return schema.const;
  if (Array.isArray(schema.enum) && schema.enum.length > 0) return schema.enum[0];
  const alternatives = schema.anyOf ?? schema.oneOf;
  if (Array.isArray(alternatives) && alternatives.length > 0) return sampleFromSchema(alternatives[0], text, depth + 1);
  const type = Array.isArray(schema.type) ? schema.type[0] : schema.type;
  switch (type) {
    case 'object': {
      const out: Record<string, unknown> = {};
      const properties = isRecord(schema.properties) ? schema.properties : {};
      for (const [key, inner] of Object.entries(properties)) out[key] = sampleFromSchema(inner, text, depth + 1);
      return out;
    }
    case 'array':
      return schema.minItems !== undefined && Number(schema.minItems) > 0
        ? [sampleFromSchema(schema.items, text, depth + 1)]
        : [];
    case 'integer':
    case 'number':
      return typeof schema.minimum === 'number' ? schema.minimum : 0;
    case 'boolean':
      return false;
    case 'null':
      return null;
    default:
      return text;
  }
}
