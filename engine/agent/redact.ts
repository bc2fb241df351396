/** Scrubs secret values out of text that is about to be kept (tool output, error messages). */
import type { Secret } from './settings/secret.js';

/** Values shorter than this are not scrubbed: they would match ordinary text. */
const MIN_SECRET_CHARS = 6;

export function secretRedactor(secrets: readonly Secret[]): (text: string) => string {
  const pairs = secrets
    .map((s) => [s.reveal(), `[redacted \${${s.name}}]`] as const)
    .filter(([value]) => value.length >= MIN_SECRET_CHARS);
  if (pairs.length === 0) return (text) => text;
  return (text) => {
    let out = text;
    for (const [value, replacement] of pairs) if (out.includes(value)) out = out.split(value).join(replacement);
    return out;
  };
}
