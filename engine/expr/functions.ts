/**
 * The pure functions expressions may call. Each takes already-evaluated values; none has side
 * effects or reaches outside its arguments.
 */
export const EXPRESSION_FUNCTIONS = {
  contains: (haystack: unknown, needle: unknown): boolean => {
    if (Array.isArray(haystack)) return haystack.some((item) => looseEquals(item, needle));
    return toText(haystack).toLowerCase().includes(toText(needle).toLowerCase());
  },
  startsWith: (text: unknown, prefix: unknown): boolean =>
    toText(text).toLowerCase().startsWith(toText(prefix).toLowerCase()),
  endsWith: (text: unknown, suffix: unknown): boolean =>
    toText(text).toLowerCase().endsWith(toText(suffix).toLowerCase()),
  join: (list: unknown, separator: unknown = ','): string =>
    Array.isArray(list) ? list.map(toText).join(toText(separator)) : toText(list),
  toJSON: (value: unknown): string => JSON.stringify(value ?? null),
  fromJSON: (text: unknown): unknown => JSON.parse(toText(text)),
  format: (template: unknown, ...args: unknown[]): string =>
    toText(template).replace(/\{(\d+)\}/g, (match, index: string) => {
      const value = args[Number(index)];
      return value === undefined ? match : toText(value);
    }),
  length: (value: unknown): number => {
    if (Array.isArray(value) || typeof value === 'string') return value.length;
    if (value !== null && typeof value === 'object') return Object.keys(value).length;
    return 0;
  },
} satisfies Record<string, (...args: never[]) => unknown>;

export type ExpressionFunctionName = keyof typeof EXPRESSION_FUNCTIONS;

/** Allowed argument counts, for the static check. */
export const FUNCTION_ARITY: Record<ExpressionFunctionName, [number, number]> = {
  contains: [2, 2],
  startsWith: [2, 2],
  endsWith: [2, 2],
  join: [1, 2],
  toJSON: [1, 1],
  fromJSON: [1, 1],
  format: [1, 20],
  length: [1, 1],
};

/** How a value reads inside text: strings as is, null as '', objects as JSON. */
export function toText(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return JSON.stringify(value);
}

/** Equality as GitHub Actions does it: strings compare case-insensitively, numbers by value. */
export function looseEquals(a: unknown, b: unknown): boolean {
  if (typeof a === 'string' && typeof b === 'string') return a.toLowerCase() === b.toLowerCase();
  if (typeof a === 'number' && typeof b === 'string') return a === Number(b);
  if (typeof a === 'string' && typeof b === 'number') return Number(a) === b;
  if (a === undefined) a = null;
  if (b === undefined) b = null;
  if (typeof a === 'object' || typeof b === 'object') return JSON.stringify(a) === JSON.stringify(b);
  return a === b;
}
