import type { Definition } from './definition.js';
import type { DefinitionSet } from './definition-set.js';
import { narrowKnobs, toList, type KnobConflict, type KnobProvenance, type SessionKnobs } from './policy.js';
import { personaView } from './persona-view.js';

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
  return knobs;
}

/** A persona's merged knobs and where each came from. */
export interface EffectiveKnobs {
  knobs: SessionKnobs;
  provenance: KnobProvenance;
  conflicts: KnobConflict[];
}

/**
 * A persona's effective knobs: its policy, narrowed by its own frontmatter, narrowed by the
 * caller's overrides (a flow step, a pinned backend), always capped by the owner policy.
 */
export function effectivePersonaKnobs(
  set: DefinitionSet,
  persona: Definition<'persona'>,
  caller?: { source: string; knobs: SessionKnobs },
): EffectiveKnobs {
  const view = personaView(persona);
  const layers: Array<{ source: string; knobs: SessionKnobs }> = [];
  const policy = view.policy === undefined ? undefined : set.get('policy', view.policy);
  if (policy !== undefined) layers.push({ source: `policy ${policy.id} (${policy.file})`, knobs: policyKnobs(policy) });
  layers.push({ source: `persona ${view.id} (${persona.file})`, knobs: view.knobs });
  if (caller !== undefined) layers.push(caller);
  if (set.ownerPolicy !== undefined)
    layers.push({ source: `owner policy (${set.ownerPolicy.file})`, knobs: policyKnobs(set.ownerPolicy) });
  const { knobs, provenance, conflicts } = narrowKnobs(layers);
  return { knobs, provenance, conflicts };
}
