/**
 * `${NAME}` references, expanded at load. A secret is read only this way, so the value never
 * sits in a config file, and every expanded value is remembered for redaction.
 */
import { AgentError } from '../errors.js';
import { Secret } from './secret.js';

const REFERENCE = /\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g;

/** Where variables come from, highest precedence first. */
export type EnvLookup = (name: string) => string | undefined;

/** The names a string references. */
export function referencedNames(value: string): string[] {
  return [...value.matchAll(REFERENCE)].map((m) => m[1]!);
}

/** Expands every `${NAME}`; an unset name is an error naming where it was looked for. */
export function expandReferences(value: string, lookup: EnvLookup, where: string, secrets: Secret[]): string {
  return value.replace(REFERENCE, (_, name: string) => {
    const found = lookup(name);
    if (found === undefined || found === '') {
      throw new AgentError('AGENT_SECRET_MISSING', `${where} references \${${name}}, which is not set`, {
        hint: `set ${name} in the environment, in NEO_HOME/.env or in <repo>/.neo/.env`,
      });
    }
    secrets.push(new Secret(name, found));
    return found;
  });
}

/** A value that must be exactly one `${NAME}` reference, as a {@link Secret}. */
export function secretReference(value: string, lookup: EnvLookup, where: string, secrets: Secret[]): Secret {
  const match = /^\$\{([A-Za-z_][A-Za-z0-9_]*)\}$/.exec(value);
  if (!match)
    throw new AgentError('AGENT_SECRET_LITERAL', `${where} must be a \${ENV} reference, not a literal value`, {
      hint: 'write apiKey: ${ANTHROPIC_API_KEY} and put the key in the environment or a .env file',
    });
  expandReferences(value, lookup, where, secrets);
  return secrets[secrets.length - 1]!;
}
