import { createRequire } from 'node:module';

/** The agent's final answer, parsed and checked against a step's outputSchema. */
export type SchemaCheck = { ok: true; value: unknown } | { ok: false; message: string };

/**
 * Finds the JSON in a final answer (a fenced ```json block, the whole text, or the last object
 * or array in it) and validates it with ajv, compiled at run time from the step's schema.
 */
export async function checkOutputSchema(text: string, schema: Record<string, unknown>): Promise<SchemaCheck> {
  const value = extractJson(text);
  if (value === undefined)
    return { ok: false, message: 'the final answer holds no JSON; the step asks for JSON matching its outputSchema' };
  // Required, not imported: ajv is CommonJS, and createRequire gives the same module shape
  // under Node, vitest and the bundle (and keeps ajv out of the bundle's start-up chunks).
  const { Ajv2020 } = createRequire(import.meta.url)('ajv/dist/2020.js') as typeof import('ajv/dist/2020.js');
  const ajv = new Ajv2020({ allErrors: true, strict: false });
  let validate;
  try {
    validate = ajv.compile(schema);
  } catch (error) {
    return {
      ok: false,
      message: `the step's outputSchema is not a valid JSON Schema: ${error instanceof Error ? error.message : String(error)}`,
    };
  }
  if (validate(value)) return { ok: true, value };
  const problems = (validate.errors ?? [])
    .slice(0, 5)
    .map((e) => `${e.instancePath || '(root)'} ${e.message ?? 'is invalid'}`);
  return { ok: false, message: `the final answer does not match outputSchema: ${problems.join('; ')}` };
}

/** The JSON value in a text, or undefined. */
export function extractJson(text: string): unknown {
  const fenced = [...text.matchAll(/```(?:json)?\s*\n([\s\S]*?)```/g)].map((m) => m[1]!).reverse();
  for (const candidate of [...fenced, text]) {
    const parsed = tryParse(candidate.trim());
    if (parsed !== undefined) return parsed;
  }
  for (let i = text.length - 1; i >= 0; i--) {
    const c = text[i];
    if (c !== '{' && c !== '[') continue;
    const close = c === '{' ? '}' : ']';
    const end = text.lastIndexOf(close);
    if (end <= i) continue;
    const parsed = tryParse(text.slice(i, end + 1));
    if (parsed !== undefined) return parsed;
  }
  return undefined;
}

function tryParse(text: string): unknown {
  if (text === '' || (text[0] !== '{' && text[0] !== '[')) return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}
