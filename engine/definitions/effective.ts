import type { Persona } from '../generated/persona.js';
import type { Definition } from './definition.js';
import type { DefinitionSet } from './definition-set.js';
import { toList } from '../util/string-list.js';
import { narrowKnobs, type KnobConflict, type KnobProvenance, type SessionKnobs } from './policy.js';
import { personaView } from './persona-view.js';
import { UNTRUSTED_CEILING, aboveUntrustedCeiling } from './privileged.js';

/** One layer of knobs and where it came from. */
export interface KnobLayer {
  source: string;
  knobs: SessionKnobs;
}

/** The knobs of a policy definition. */
export function policyKnobs(policy: Definition<'policy'>): SessionKnobs {
  const data = policy.data;
  const knobs: SessionKnobs = {};
  if (data.maxPosture !== undefined) knobs.maxPosture = data.maxPosture;
  if (data.initialPosture !== undefined) knobs.initialPosture = data.initialPosture;
  if (data.maxRounds !== undefined) knobs.maxRounds = data.maxRounds;
  if (data.backend !== undefined) knobs.backend = data.backend;
  const tools = toList(data.allowedTools);
  if (tools !== undefined) knobs.allowedTools = tools;
  if (data.budgets !== undefined) knobs.budgets = data.budgets;
  if (data.sandbox !== undefined) knobs.sandbox = data.sandbox;
  return knobs;
}

/**
 * The knobs of a policy as a definition that names it may use: an untrusted definition reaches
 * no posture above acceptEdits through the policy it names (`policy: autonomous` is capped).
 */
export function namedPolicyKnobs(policy: Definition<'policy'>, namedBy: { trusted: boolean }): SessionKnobs {
  const knobs = policyKnobs(policy);
  if (namedBy.trusted) return knobs;
  if (aboveUntrustedCeiling(knobs.maxPosture)) knobs.maxPosture = UNTRUSTED_CEILING;
  if (aboveUntrustedCeiling(knobs.initialPosture)) knobs.initialPosture = UNTRUSTED_CEILING;
  return knobs;
}

/**
 * The definition an untrusted one overrides, whose narrowing it keeps: the highest trusted
 * definition of the same kind and id in a lower layer. Undefined for a trusted definition.
 */
export function overriddenTrusted<K extends Definition['kind']>(
  set: DefinitionSet,
  definition: Definition<K>,
): Definition<K> | undefined {
  if (definition.trusted) return undefined;
  const lower = set.shadowedBy(definition.kind, definition.id).filter((d) => d.trusted);
  return lower[lower.length - 1] as Definition<K> | undefined;
}

/** How a persona's layers are labelled: its policy's, and its own. */
export interface LayerLabels {
  policy(persona: Definition<'persona'>, policy: Definition<'policy'>): string;
  persona(persona: Definition<'persona'>): string;
}

const FILE_LABELS: LayerLabels = {
  policy: (_persona, policy) => `policy ${policy.id} (${policy.file})`,
  persona: (persona) => `persona ${persona.id} (${persona.file})`,
};

/**
 * A persona's knob layers, widest first: its policy, then its own frontmatter. An untrusted
 * persona that overrides a trusted one (`.neo/personas/reviewer.md` over the packaged reviewer)
 * starts from that one's layers, so it can only narrow them; the policy it names is capped at
 * acceptEdits.
 */
export function personaKnobLayers(
  set: DefinitionSet,
  persona: Definition<'persona'>,
  labels: LayerLabels = FILE_LABELS,
): KnobLayer[] {
  const base = overriddenTrusted(set, persona);
  const kept = (base === undefined ? [] : ownKnobLayers(set, base, labels)).map((layer) => ({
    source: `${base!.layer} ${layer.source}`,
    knobs: layer.knobs,
  }));
  return [...kept, ...ownKnobLayers(set, persona, labels)];
}

/** A persona's own layers (its policy, its frontmatter), without what it overrides. */
export function ownKnobLayers(
  set: DefinitionSet,
  persona: Definition<'persona'>,
  labels: LayerLabels = FILE_LABELS,
): KnobLayer[] {
  const view = personaView(persona);
  const policy = view.policy === undefined ? undefined : set.get('policy', view.policy);
  return [
    ...(policy === undefined
      ? []
      : [{ source: labels.policy(persona, policy), knobs: namedPolicyKnobs(policy, persona) }]),
    { source: labels.persona(persona), knobs: view.knobs },
  ];
}

/** One of a persona's `rules.clarify` entries. */
export type ClarifyRule = NonNullable<NonNullable<Persona['rules']>['clarify']>[number];

/**
 * The persona's deny rules, and those of the trusted persona it overrides when it is untrusted.
 * A deny only narrows, so it applies however the persona runs: as a driver, as the driven
 * agent's role, or as a driver demoted because its project is not trusted.
 */
export function personaDenyRules(set: DefinitionSet, persona: Definition<'persona'>): ClarifyRule[] {
  const base = overriddenTrusted(set, persona);
  const own = (d: Definition<'persona'>) => (d.data.rules?.clarify ?? []).filter((rule) => rule.decision === 'deny');
  return [...own(persona), ...(base === undefined ? [] : own(base))];
}

/** A persona's merged knobs and where each came from. */
export interface EffectiveKnobs {
  knobs: SessionKnobs;
  provenance: KnobProvenance;
  conflicts: KnobConflict[];
}

/**
 * A persona's effective knobs: its layers ({@link personaKnobLayers}), narrowed by the caller's
 * overrides (a flow step, a pinned backend), always capped by the owner policy.
 */
export function effectivePersonaKnobs(
  set: DefinitionSet,
  persona: Definition<'persona'>,
  caller?: KnobLayer,
): EffectiveKnobs {
  const layers = personaKnobLayers(set, persona);
  if (caller !== undefined) layers.push(caller);
  if (set.ownerPolicy !== undefined)
    layers.push({ source: `owner policy (${set.ownerPolicy.file})`, knobs: policyKnobs(set.ownerPolicy) });
  const { knobs, provenance, conflicts } = narrowKnobs(layers);
  return { knobs, provenance, conflicts };
}
