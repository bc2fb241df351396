/**
 * Narrowing untyped JSON (a wire message, a tool input, a request body): the one test of "a plain
 * object" every reader of foreign data uses. Pure: the pure folders import it too.
 */

/** Whether `value` is a plain object (not null, not an array). */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** `value` as a plain object, or undefined for anything else. */
export function asRecord(value: unknown): Record<string, unknown> | undefined {
  return isRecord(value) ? value : undefined;
}
