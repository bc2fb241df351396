/**
 * `parts` without its undefined properties: the one way to build an object from optional parts,
 * where `...(x !== undefined ? { x } : {})` was written once per field. A record keeps no
 * `key: undefined` (which `in`, `Object.keys` and a JSON round trip would each treat differently).
 */
export function defined<T extends Record<string, unknown>>(parts: T): { [K in keyof T]?: Exclude<T[K], undefined> } {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(parts)) if (value !== undefined) out[key] = value;
  return out as { [K in keyof T]?: Exclude<T[K], undefined> };
}
