/**
 * The untrusted-layer rules that need the whole layered set: an untrusted definition never
 * widens the trusted one it overrides, and never reaches above acceptEdits through a policy it
 * names. The per-file rules are in privileged.ts; the effect of these is applied where knobs are
 * layered (effective.ts) and to neo.yaml defaults here. Each is a warning where it is written.
 */
import type { Config } from '../generated/config.js';
import type { AnyDefinition, Definition } from './definition.js';
import type { DefinitionSet } from './definition-set.js';
import { toPointer, type Diagnostic } from './diagnostic.js';
import { ownKnobLayers, overriddenTrusted } from './effective.js';
import { makeDefinition } from './load-file.js';
import { postureWithin } from '../posture/index.js';
import { DEFAULT_MAX_ROUNDS, narrowKnobs, type SessionKnobs } from './policy.js';
import { TRUST_HINT, UNTRUSTED_CEILING, UNTRUSTED_CODE, aboveUntrustedCeiling } from './privileged.js';

/** Where a persona writes each knob (Claude's spelling second). */
const KNOB_KEYS: Partial<Record<keyof SessionKnobs, string[]>> = {
  maxPosture: ['maxPosture'],
  initialPosture: ['initialPosture', 'permissionMode'],
  maxRounds: ['maxRounds', 'maxTurns'],
};

/** Warnings for untrusted definitions of a built set (personas and flows). */
export function checkUntrustedSet(set: DefinitionSet): Diagnostic[] {
  const out: Diagnostic[] = [];
  for (const persona of set.list('persona')) {
    if (persona.trusted) continue;
    out.push(...namedPolicyWarnings(set, persona, [['policy', persona.data.policy]]));
    const base = overriddenTrusted(set, persona);
    if (base === undefined) continue;
    const own = ownKnobLayers(set, persona);
    const merged = narrowKnobs([...ownKnobLayers(set, base), ...own]);
    for (const wide of merged.widened) {
      if (!own.some((layer) => layer.source === wide.source)) continue;
      const key = (KNOB_KEYS[wide.knob] ?? [wide.knob]).find((k) => k in persona.data) ?? wide.knob;
      out.push(
        warning(
          persona,
          [key],
          `\`${key}\` would widen the ${base.layer} persona \`${base.id}\` this file overrides (${String(wide.value)} over ${String(wide.kept)}); the ${base.layer} value applies: ${because(persona)}`,
        ),
      );
    }
  }
  for (const flow of set.list('flow')) {
    if (flow.trusted) continue;
    const named: Array<[Array<string | number>, string | undefined]> = [
      [['defaults', 'policy'], flow.data.defaults?.policy],
    ];
    for (const list of ['steps', 'finally'] as const)
      (flow.data[list] ?? []).forEach((step, i) => named.push([[list, i, 'policy'], step.policy]));
    out.push(...namedPolicyWarnings(set, flow, named));
  }
  return out;
}

function namedPolicyWarnings(
  set: DefinitionSet,
  from: AnyDefinition,
  named: ReadonlyArray<[Array<string | number> | string, string | undefined]>,
): Diagnostic[] {
  const out: Diagnostic[] = [];
  for (const [where, id] of named) {
    const policy = id === undefined ? undefined : set.get('policy', id);
    if (policy === undefined) continue;
    const over = [policy.data.maxPosture, policy.data.initialPosture].find(aboveUntrustedCeiling);
    if (over === undefined) continue;
    const segments = Array.isArray(where) ? where : [where];
    out.push(
      warning(
        from,
        segments,
        from.untrustedBecause === undefined
          ? `\`policy: ${policy.id}\` allows posture ${String(over)}; named from an untrusted project it is capped at ${UNTRUSTED_CEILING}`
          : `\`policy: ${policy.id}\` allows posture ${String(over)}; it is capped at ${UNTRUSTED_CEILING}: ${from.untrustedBecause}`,
      ),
    );
  }
  return out;
}

/**
 * neo.yaml defaults with an untrusted layer narrowed to what the trusted layers below allow:
 * `defaults.maxPosture` and `defaults.maxRounds` may only come down (from neo's own defaults when
 * no trusted neo.yaml sets them: a round cap is a budget the owner did not grant). Returns the configs to keep
 * (an untrusted one rebuilt without its widening fields) and a warning per dropped field.
 */
export function narrowUntrustedConfigs(configs: readonly Definition<'config'>[]): {
  configs: Definition<'config'>[];
  diagnostics: Diagnostic[];
} {
  const diagnostics: Diagnostic[] = [];
  const trusted: NonNullable<Config['defaults']> = { maxRounds: DEFAULT_MAX_ROUNDS };
  const ownSets = { maxPosture: false, maxRounds: false };
  const out = configs.map((config) => {
    const defaults = config.data.defaults ?? {};
    if (config.trusted) {
      if (defaults.maxPosture !== undefined) {
        trusted.maxPosture = defaults.maxPosture;
        ownSets.maxPosture = true;
      }
      if (defaults.maxRounds !== undefined) {
        trusted.maxRounds = defaults.maxRounds;
        ownSets.maxRounds = true;
      }
      return config;
    }
    const widening: Array<'maxPosture' | 'maxRounds'> = [];
    if (
      defaults.maxPosture !== undefined &&
      trusted.maxPosture !== undefined &&
      !postureWithin(defaults.maxPosture, trusted.maxPosture)
    )
      widening.push('maxPosture');
    if (defaults.maxRounds !== undefined && trusted.maxRounds !== undefined && defaults.maxRounds > trusted.maxRounds)
      widening.push('maxRounds');
    if (widening.length === 0) return config;
    const narrowed = structuredClone(config.data);
    for (const key of widening) {
      delete narrowed.defaults![key];
      diagnostics.push(
        warning(
          config,
          ['defaults', key],
          `\`defaults.${key}: ${String(defaults[key])}\` would widen ${ownSets[key] ? 'your own neo.yaml' : "neo's default"} (${String(trusted[key])}); ${ownSets[key] ? 'yours' : 'the default'} applies: ${because(config)}`,
        ),
      );
    }
    const { kind, id, layer, file, idSpan, digest, untrustedBecause } = config;
    const ignoredFields = [...config.ignoredFields, ...widening.map((k) => `defaults.${k}`)];
    return makeDefinition(
      {
        kind,
        id,
        layer,
        file,
        idSpan,
        digest,
        trusted: false,
        ignoredFields,
        ...(untrustedBecause === undefined ? {} : { untrustedBecause }),
        data: narrowed,
        body: undefined,
      },
      () => config.source,
    ) as Definition<'config'>;
  });
  return { configs: out, diagnostics };
}

/** Why an untrusted definition may only narrow: its project is not trusted, or it changed since `neo trust`. */
function because(from: AnyDefinition): string {
  return from.untrustedBecause ?? 'this project is not trusted';
}

function warning(from: AnyDefinition, segments: Array<string | number>, message: string): Diagnostic {
  return {
    code: UNTRUSTED_CODE,
    severity: 'warning',
    message,
    span: from.source.spanOf(from.source.locate(segments.map(String)).node),
    pointer: toPointer(segments),
    hint: TRUST_HINT,
  };
}
