/**
 * The one rule of what environment a confined process gets: an allowlist, never neo's own
 * environment minus a denylist. A shell, a compiler and a test runner need the variables below;
 * none of them carries a credential. Anything else — a provider key, a token, a database URL, a
 * switch that makes a CLI trust its workspace — reaches a confined process only when the caller
 * names it (a step's `env:`, a secret the step declares by name, the one credential an agent's
 * own provider needs) or sets it outright.
 */

/** Variables every confined process keeps from the caller's environment, when set. */
export const BASE_ENV_NAMES: readonly string[] = [
  'PATH',
  'HOME',
  'USER',
  'LOGNAME',
  'SHELL',
  'LANG',
  'LANGUAGE',
  'TZ',
  'TERM',
  'COLORTERM',
  'NO_COLOR',
  'FORCE_COLOR',
  'CI',
];

/** Locale categories (`LC_ALL`, `LC_CTYPE`, …) are kept as a family. */
const BASE_ENV_PREFIXES: readonly string[] = ['LC_'];

export interface ConfinedEnvOptions {
  /** Further names to keep from `source` when set (a step's declared secrets, a backend's credential). */
  keep?: readonly string[];
  /** Values set outright, over anything kept (a step's `env:`, `NEO_OUTPUT`, a CLI's trust switches). */
  set?: Readonly<Record<string, string>>;
}

/** The environment of a confined process: the base allowlist and `keep` from `source`, then `set`. */
export function confinedEnv(source: NodeJS.ProcessEnv, options: ConfinedEnvOptions = {}): Record<string, string> {
  const out: Record<string, string> = {};
  const keep = new Set([...BASE_ENV_NAMES, ...(options.keep ?? [])]);
  for (const [name, value] of Object.entries(source)) {
    if (value === undefined) continue;
    if (keep.has(name) || BASE_ENV_PREFIXES.some((prefix) => name.startsWith(prefix))) out[name] = value;
  }
  return { ...out, ...options.set };
}
