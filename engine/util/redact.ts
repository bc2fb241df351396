/**
 * The one redactor: every string neo keeps (the store) or shows (a terminal, `--json`, the web
 * UI, a decision log) passes it. A secret is a value neo knows to be one — a provider key it
 * expanded, the value of an environment variable whose name says it is a secret, or one whose
 * value is a URL carrying a password (`DATABASE_URL=postgres://user:pass@host/db`) — and each
 * occurrence becomes `[redacted ${NAME}]`. Whatever the environment, the password of any URL
 * (`scheme://user:password@host`) is redacted too: a credential needs no telling name.
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

/**
 * A URL's userinfo with a password: `scheme://` then the user, `:`, the password and `@`. The
 * parts stop at what cannot be in them unescaped (whitespace, `/?#@`, quotes, a backslash), so a
 * match never spans JSON or shell quoting.
 */
const URL_PASSWORD = /\b([a-z][a-z0-9+.-]*:\/\/)([^\s:@/?#"'`\\<>]*):([^\s@/?#"'`\\<>]+)@/gi;

/** The password of a URL with userinfo, or undefined. */
function urlPassword(value: string): string | undefined {
  URL_PASSWORD.lastIndex = 0;
  const match = URL_PASSWORD.exec(value.trim());
  URL_PASSWORD.lastIndex = 0;
  return match?.[3];
}

/** Every URL password in `text` replaced (the user and host are kept: they say which credential it was). */
function redactUrlPasswords(text: string): string {
  if (!text.includes('://')) return text;
  return text.replace(URL_PASSWORD, '$1$2:[redacted]@');
}

/** A redactor of these secrets, and of every URL's password. */
export function redactor(secrets: readonly SecretValue[]): Redact {
  const pairs = secrets
    .filter(({ value }) => value.length >= MIN_SECRET_CHARS)
    // The longest first: a key that contains another is replaced whole.
    .sort((a, b) => b.value.length - a.value.length)
    .map(({ name, value }) => [value, `[redacted \${${name}}]`] as const);
  return (text) => {
    let out = text;
    for (const [value, replacement] of pairs) if (out.includes(value)) out = out.split(value).join(replacement);
    return redactUrlPasswords(out);
  };
}

/**
 * The secrets an environment holds: the values of variables whose names say they are secrets,
 * and of any variable whose value is a URL with a password (that password too, alone and
 * percent-decoded, as a program may print it apart from its URL).
 */
export function environmentSecrets(env: NodeJS.ProcessEnv): SecretValue[] {
  const found: SecretValue[] = [];
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined) continue;
    const password = urlPassword(value);
    if (SECRET_NAME.test(name) || password !== undefined) found.push({ name, value });
    if (password === undefined) continue;
    found.push({ name, value: password });
    const decoded = safeDecode(password);
    if (decoded !== password) found.push({ name, value: decoded });
  }
  return found;
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/** A redactor of the secrets in `env` (see {@link environmentSecrets}). */
export function environmentRedactor(env: NodeJS.ProcessEnv): Redact {
  return redactor(environmentSecrets(env));
}

let processRedactor: Redact | undefined;
/** Variables a flow declared as secrets (`secrets:`), whatever their names say. */
const declaredNames = new Set<string>();

/**
 * The redactor of this process's environment, made once: what the store writes, a terminal or
 * `--json` shows, a decision log keeps and the web UI sends all pass this one.
 */
export function processRedact(): Redact {
  return (processRedactor ??= redactor([
    ...environmentSecrets(process.env),
    ...[...declaredNames].flatMap((name) => {
      const value = process.env[name];
      return value === undefined ? [] : [{ name, value }];
    }),
  ]));
}

/** Makes the values of these variables secrets to {@link processRedact}, whatever their names. */
export function declareSecretNames(names: Iterable<string>): void {
  const before = declaredNames.size;
  for (const name of names) declaredNames.add(name);
  if (declaredNames.size !== before) processRedactor = undefined;
}

/**
 * Every string inside `value` (objects and arrays walked, keys kept) redacted; `value` itself
 * when nothing changed, so an event without a secret costs a walk and no copy. A class instance
 * that serializes through `toJSON` (a run's table of steps) is redacted as that JSON, since that
 * is what leaves the process, never through its internal fields; when a string in it changed it
 * comes back rebuilt by its class's static `fromJSON` (so an in-process reader keeps its type),
 * or as the redacted JSON when the class has none.
 */
export function redactDeep<T>(value: T, redact: Redact): T {
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
    // Keys, not entries: a run redacts every event and checkpoint, and a pair per field was most
    // of what this walk allocated.
    const record = value as Record<string, unknown>;
    for (const key of Object.keys(record)) {
      const item = record[key];
      const next = walk(item, redact);
      if (next !== item) (copy ??= { ...record })[key] = next;
    }
    return copy ?? value;
  }
  if (value !== null && typeof value === 'object' && typeof (value as Serializable).toJSON === 'function') {
    const json = (value as Serializable).toJSON();
    const next = walk(json, redact);
    if (next === json) return value;
    const kind = value.constructor as { fromJSON?: (json: unknown) => unknown } | undefined;
    return typeof kind?.fromJSON === 'function' ? kind.fromJSON(next) : next;
  }
  return value;
}

interface Serializable {
  toJSON(): unknown;
}
