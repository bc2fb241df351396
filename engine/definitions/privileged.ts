import type { Posture } from '../generated/common.js';
import type { Diagnostic } from './diagnostic.js';
import { toPointer, pointerToFieldPath } from './diagnostic.js';
import type { DefinitionKind } from './kinds.js';
import { isPosture, postureWithin } from '../posture/index.js';
import type { YamlSource } from './source.js';

/** The hint every untrusted-layer warning carries. */
export const TRUST_HINT = 'run `neo trust` in this repository to allow it (recorded under NEO_HOME)';

/** The code of every warning about something an untrusted project may not do. */
export const UNTRUSTED_CODE = 'DEF_UNTRUSTED_FIELD';

/** The highest posture anything from an untrusted project may ask for, or reach through a policy it names. */
export const UNTRUSTED_CEILING: Posture = 'acceptEdits';

/** Whether an untrusted layer may not ask for `posture`. */
export function aboveUntrustedCeiling(posture: unknown): boolean {
  return isPosture(posture) && !postureWithin(posture, UNTRUSTED_CEILING);
}

/** Provider fields that decide where a request goes and what credentials ride along. */
const PROVIDER_ROUTE_FIELDS = ['baseUrl', 'apiKey', 'headers'] as const;

/**
 * Drops what a definition from an untrusted project layer may not set, one field at a time:
 * - a persona's `driver: true` (its rules would decide permission asks and run `verify`: a
 *   demoted driver is the agent's role, its deny rules kept, the rest of `rules` unused), a
 *   posture above acceptEdits (`maxPosture`, `initialPosture`, `permissionMode: bypassPermissions`),
 *   and `hooks` / `mcpServers` (they name programs to run);
 * - a policy's or flow's posture above acceptEdits (defaults and every step);
 * - a neo.yaml's `defaults.maxPosture` above acceptEdits, `agent.provider` (which of the user's
 *   keys is used) and every provider's `baseUrl`, `apiKey` and `headers` (where a key, and the
 *   user's code, would be sent);
 * - whole backend descriptors and capability entries (they name programs to run).
 * What narrows (a lower posture, a deny rule, fewer tools) is kept. Each drop is a warning that
 * says how to trust the project; `data: undefined` when the whole definition is ignored.
 */
export function stripUntrusted(
  kind: DefinitionKind,
  data: Record<string, unknown>,
  source: YamlSource,
): { data: Record<string, unknown> | undefined; ignored: string[]; diagnostics: Diagnostic[] } {
  const diagnostics: Diagnostic[] = [];
  const ignored: string[] = [];
  if (kind === 'backend' || kind === 'capability') {
    diagnostics.push({
      code: UNTRUSTED_CODE,
      severity: 'warning',
      message: `${kind} definitions from an untrusted project are ignored: they name programs to run`,
      span: source.spanOf(source.doc.contents),
      hint: TRUST_HINT,
    });
    return { data: undefined, ignored: ['(whole file)'], diagnostics };
  }
  const copy = structuredClone(data);
  const drop = (segments: Array<string | number>, why: string) => {
    const parent = segments
      .slice(0, -1)
      .reduce<unknown>((node, key) => (node as Record<string | number, unknown>)?.[key], copy) as
      Record<string | number, unknown> | undefined;
    const last = segments[segments.length - 1]!;
    if (parent === undefined || parent === null || !(last in parent)) return;
    delete parent[last];
    const pointer = toPointer(segments);
    const field = pointerToFieldPath(pointer);
    ignored.push(field);
    diagnostics.push({
      code: UNTRUSTED_CODE,
      severity: 'warning',
      message: `\`${field}\` ${why} is ignored: this project is not trusted`,
      span: source.spanOf(source.locate(segments.map(String)).node),
      pointer,
      hint: TRUST_HINT,
    });
  };
  const dropHighPosture = (segments: Array<string | number>, node: unknown, keys: readonly string[]) => {
    if (node === null || typeof node !== 'object') return;
    for (const key of keys) {
      if (aboveUntrustedCeiling((node as Record<string, unknown>)[key]))
        drop([...segments, key], `(a posture above ${UNTRUSTED_CEILING})`);
    }
  };
  const POSTURE_KEYS = ['maxPosture', 'initialPosture', 'posture'];
  if (kind === 'persona') {
    if (copy.driver === true)
      drop(['driver'], '(a driver persona: its allow rules and verify are not used; its deny rules still apply)');
    if (copy.permissionMode === 'bypassPermissions') drop(['permissionMode'], '(bypassPermissions is posture full)');
    dropHighPosture([], copy, POSTURE_KEYS);
    if (copy.hooks !== undefined) drop(['hooks'], '(hooks run programs)');
    if (copy.mcpServers !== undefined) drop(['mcpServers'], '(MCP servers run programs)');
  } else if (kind === 'policy') {
    dropHighPosture([], copy, POSTURE_KEYS);
  } else if (kind === 'flow') {
    dropHighPosture(['defaults'], copy.defaults, POSTURE_KEYS);
    for (const list of ['steps', 'finally'] as const) {
      const steps = copy[list];
      if (Array.isArray(steps)) steps.forEach((step, i) => dropHighPosture([list, i], step, POSTURE_KEYS));
    }
  } else if (kind === 'config') {
    dropHighPosture(['defaults'], copy.defaults, ['maxPosture']);
    drop(['agent', 'provider'], "(which of your providers, and keys, neo's agent uses)");
    const providers = (copy.providers ?? {}) as Record<string, unknown>;
    for (const name of Object.keys(providers)) {
      for (const field of PROVIDER_ROUTE_FIELDS)
        drop(['providers', name, field], "(a provider's URL, key or headers: where your key would be sent)");
    }
  }
  return { data: copy, ignored, diagnostics };
}
