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

/** A privileged field of one definition: where it is and why it is privileged. */
export interface PrivilegedPart {
  segments: Array<string | number>;
  why: string;
}

const POSTURE_KEYS = ['maxPosture', 'initialPosture', 'posture'];

/**
 * What of a definition only a trusted project may set, the one list both {@link stripUntrusted}
 * and the pins of `neo trust` (pins.ts) read: `'whole'` for backend descriptors and capability
 * entries (they name programs to run), else each privileged field present:
 * - a persona's `driver: true` (its rules would decide permission asks and run `verify`: a
 *   demoted driver is the agent's role, its deny rules kept, the rest of `rules` unused), a
 *   posture above acceptEdits (`maxPosture`, `initialPosture`, `permissionMode: bypassPermissions`),
 *   and `hooks` / `mcpServers` (they name programs to run);
 * - a policy's or flow's posture above acceptEdits (defaults and every step);
 * - a neo.yaml's `defaults.maxPosture` above acceptEdits, `agent.provider` (which of the user's
 *   keys is used) and every provider's `baseUrl`, `apiKey` and `headers` (where a key, and the
 *   user's code, would be sent).
 * Pure and cheap (a few key lookups): every project file is asked on every load.
 */
export function privilegedParts(kind: DefinitionKind, data: Record<string, unknown>): 'whole' | PrivilegedPart[] {
  if (kind === 'backend' || kind === 'capability') return 'whole';
  const parts: PrivilegedPart[] = [];
  const add = (segments: Array<string | number>, why: string) => {
    const parent = segments
      .slice(0, -1)
      .reduce<unknown>((node, key) => (node as Record<string | number, unknown>)?.[key], data);
    const last = segments[segments.length - 1]!;
    if (parent === undefined || parent === null || typeof parent !== 'object' || !(last in parent)) return;
    parts.push({ segments, why });
  };
  const addHighPosture = (segments: Array<string | number>, node: unknown, keys: readonly string[]) => {
    if (node === null || typeof node !== 'object') return;
    for (const key of keys) {
      if (aboveUntrustedCeiling((node as Record<string, unknown>)[key]))
        add([...segments, key], `(a posture above ${UNTRUSTED_CEILING})`);
    }
  };
  if (kind === 'persona') {
    if (data.driver === true)
      add(['driver'], '(a driver persona: its allow rules and verify are not used; its deny rules still apply)');
    if (data.permissionMode === 'bypassPermissions') add(['permissionMode'], '(bypassPermissions is posture full)');
    addHighPosture([], data, POSTURE_KEYS);
    if (data.hooks !== undefined) add(['hooks'], '(hooks run programs)');
    if (data.mcpServers !== undefined) add(['mcpServers'], '(MCP servers run programs)');
  } else if (kind === 'policy') {
    addHighPosture([], data, POSTURE_KEYS);
  } else if (kind === 'flow') {
    addHighPosture(['defaults'], data.defaults, POSTURE_KEYS);
    for (const list of ['steps', 'finally'] as const) {
      const steps = data[list];
      if (Array.isArray(steps)) steps.forEach((step, i) => addHighPosture([list, i], step, POSTURE_KEYS));
    }
  } else if (kind === 'config') {
    const defaults = data.defaults;
    addHighPosture(['defaults'], defaults, ['maxPosture']);
    add(['agent', 'provider'], "(which of your providers, and keys, neo's agent uses)");
    const providers = (data.providers ?? {}) as Record<string, unknown>;
    for (const name of Object.keys(providers)) {
      for (const field of PROVIDER_ROUTE_FIELDS)
        add(['providers', name, field], "(a provider's URL, key or headers: where your key would be sent)");
    }
  }
  return parts;
}

/**
 * The policies a definition names (a persona's `policy`, a flow's `defaults.policy` and each
 * step's). Not dropped from an untrusted file — the set-level rule caps what they reach at
 * acceptEdits (untrusted-set.ts) — but pinned by `neo trust` with {@link privilegedParts}: naming
 * `policy: autonomous` from a persona that shadows one the owner runs is how a file with no
 * privileged field of its own would reach posture full.
 */
export function namedPolicyParts(kind: DefinitionKind, data: Record<string, unknown>): Array<Array<string | number>> {
  const out: Array<Array<string | number>> = [];
  const named = (segments: Array<string | number>, node: unknown) => {
    if (node !== null && typeof node === 'object' && typeof (node as Record<string, unknown>).policy === 'string')
      out.push([...segments, 'policy']);
  };
  if (kind === 'persona') named([], data);
  if (kind === 'flow') {
    named(['defaults'], data.defaults);
    for (const list of ['steps', 'finally'] as const) {
      const steps = data[list];
      if (Array.isArray(steps)) steps.forEach((step, i) => named([list, i], step));
    }
  }
  return out;
}

/** Why a project file's privileged parts are dropped, as its warnings say it. */
export interface DropReason {
  /** Ends each field's warning: `` `driver` (…) is ignored: <because> ``. */
  because: string;
  hint: string;
}

/** The project is not trusted at all. */
export const NOT_TRUSTED: DropReason = { because: 'this project is not trusted', hint: TRUST_HINT };

/**
 * Drops a definition's {@link privilegedParts} as for an untrusted project layer, one field at a
 * time. What narrows (a lower posture, a deny rule, fewer tools) is kept. Each drop is a warning
 * that says how to trust the project (`reason`); `data: undefined` when the whole definition is
 * ignored.
 */
export function stripUntrusted(
  kind: DefinitionKind,
  data: Record<string, unknown>,
  source: YamlSource,
  reason: DropReason = NOT_TRUSTED,
): { data: Record<string, unknown> | undefined; ignored: string[]; diagnostics: Diagnostic[] } {
  const parts = privilegedParts(kind, data);
  if (parts === 'whole') {
    return {
      data: undefined,
      ignored: ['(whole file)'],
      diagnostics: [
        {
          code: UNTRUSTED_CODE,
          severity: 'warning',
          message:
            reason === NOT_TRUSTED
              ? `${kind} definitions from an untrusted project are ignored: they name programs to run`
              : `this ${kind} file is ignored (it names programs to run): ${reason.because}`,
          span: source.spanOf(source.doc.contents),
          hint: reason.hint,
        },
      ],
    };
  }
  const copy = structuredClone(data);
  const ignored: string[] = [];
  const diagnostics: Diagnostic[] = [];
  for (const { segments, why } of parts) {
    const parent = segments
      .slice(0, -1)
      .reduce<unknown>((node, key) => (node as Record<string | number, unknown>)[key], copy) as Record<
      string | number,
      unknown
    >;
    delete parent[segments[segments.length - 1]!];
    const pointer = toPointer(segments);
    const field = pointerToFieldPath(pointer);
    ignored.push(field);
    diagnostics.push({
      code: UNTRUSTED_CODE,
      severity: 'warning',
      message: `\`${field}\` ${why} is ignored: ${reason.because}`,
      span: source.spanOf(source.locate(segments.map(String)).node),
      pointer,
      hint: reason.hint,
    });
  }
  return { data: copy, ignored, diagnostics };
}
