/**
 * The one redactor: every string neo keeps (the store) or shows (a terminal) passes it. A secret
 * is a value neo knows to be one — a provider key it expanded, or the value of an environment
 * variable whose name says it is a secret — and each occurrence becomes `[redacted ${NAME}]`.
 */

/** A secret's name (what the replacement says) and value (what is looked for). */
export interface SecretValue {
  name: string;
  value: string;
}

export type Redact = (text: string) => string;

/** Values shorter than this are not scrubbed: they would match ordinary text. */
const MIN_SECRET_CHARS = 6;

/** Names of environment variables that hold secrets: `…_API_KEY`, `…TOKEN`, `…SECRET…`, passwords. */
const SECRET_NAME = /(?:KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIALS?|AUTH)$|SECRET|PASSWORD|API_?KEY|ACCESS_?KEY/i;

const identity: Redact = (text) => text;

/** A redactor of these secrets (the identity when there is none worth scrubbing). */
export function redactor(secrets: readonly SecretValue[]): Redact {
  const pairs = secrets
    .filter(({ value }) => value.length >= MIN_SECRET_CHARS)
    // The longest first: a key that contains another is replaced whole.
    .sort((a, b) => b.value.length - a.value.length)
    .map(({ name, value }) => [value, `[redacted \${${name}}]`] as const);
  if (pairs.length === 0) return identity;
  return (text) => {
    let out = text;
    for (const [value, replacement] of pairs) if (out.includes(value)) out = out.split(value).join(replacement);
    return out;
  };
}

/** The secrets an environment holds, by the names of its variables. */
export function environmentSecrets(env: NodeJS.ProcessEnv): SecretValue[] {
  const found: SecretValue[] = [];
  for (const [name, value] of Object.entries(env))
    if (value !== undefined && SECRET_NAME.test(name)) found.push({ name, value });
  return found;
}

/** A redactor of the secrets in `env` (see {@link environmentSecrets}). */
export function environmentRedactor(env: NodeJS.ProcessEnv): Redact {
  return redactor(environmentSecrets(env));
}

/**
 * Every string inside `value` (objects and arrays walked, keys kept) redacted; `value` itself
 * when nothing changed, so an event without a secret costs a walk and no copy.
 */
export function redactDeep<T>(value: T, redact: Redact): T {
  if (redact === identity) return value;
  return walk(value, redact) as T;
}

function walk(value: unknown, redact: Redact): unknown {
  if (typeof value === 'string') return redact(value);
  if (Array.isArray(value)) {
    let copy: unknown[] | undefined;
    value.forEach((item, i) => {
      const next = walk(item, redact);
      if (next !== item) (copy ??= [...value])[i] = next;
    });
    return copy ?? value;
  }
  if (value !== null && typeof value === 'object' && Object.getPrototypeOf(value) === Object.prototype) {
    let copy: Record<string, unknown> | undefined;
    for (const [key, item] of Object.entries(value)) {
      const next = walk(item, redact);
      if (next !== item) (copy ??= { ...value })[key] = next;
    }
    return copy ?? value;
  }
  return value;
}
