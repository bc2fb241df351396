/**
 * The redactor of neo's own agent: the secrets it expanded for its provider and those of the
 * environment it runs with, scrubbed by the one redactor (util/redact.ts), so its transcript and
 * events keep no more than the session store does.
 */
import { environmentSecrets, redactor, type Redact, type SecretValue } from '../util/redact.js';
import type { Secret } from './settings/secret.js';

/** `extra`: values the session read for others (an MCP server's `${NAME}` references). */
export function secretRedactor(
  secrets: readonly Secret[],
  env: NodeJS.ProcessEnv = process.env,
  extra: readonly SecretValue[] = [],
): Redact {
  return redactor([...secrets.map((s) => ({ name: s.name, value: s.reveal() })), ...environmentSecrets(env), ...extra]);
}
