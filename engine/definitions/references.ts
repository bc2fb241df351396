import { didYouMean } from '../util/did-you-mean.js';
import type { DefinitionSet } from './definition-set.js';
import type { Diagnostic } from './diagnostic.js';
import { toPointer } from './diagnostic.js';
import { checkFlow } from './flow-check.js';
import type { AnyDefinition } from './definition.js';
import { narrowKnobs, postureWithin } from './policy.js';
import { personaView } from './persona-view.js';

/**
 * Cross-reference checks that run after schema validation: a persona's backend pin and policy
 * exist, a policy's backend exists, a flow's steps, needs and expressions resolve.
 */
export function checkReferences(set: DefinitionSet, only?: (definition: AnyDefinition) => boolean): Diagnostic[] {
  const out: Diagnostic[] = [];
  for (const definition of set.all()) {
    if (only && !only(definition)) continue;
    switch (definition.kind) {
      case 'persona': {
        const data = definition.data;
        out.push(...ref(set, definition, 'backend', data.backend, ['backend']));
        out.push(...ref(set, definition, 'policy', data.policy, ['policy']));
        data.rules?.prefer?.forEach((id, i) => out.push(...ref(set, definition, 'backend', id, ['rules', 'prefer', i])));
        out.push(...widening(set, definition));
        break;
      }
      case 'policy':
        out.push(...ref(set, definition, 'backend', definition.data.backend, ['backend']));
        break;
      case 'flow':
        out.push(...checkFlow(definition, set));
        break;
      default:
        break;
    }
  }
  return out;
}

function ref(set: DefinitionSet, from: AnyDefinition, kind: 'backend' | 'policy', id: string | undefined, segments: Array<string | number>): Diagnostic[] {
  if (id === undefined || set.has(kind, id)) return [];
  const suggestion = didYouMean(id, set.ids(kind));
  return [
    {
      code: `DEF_UNKNOWN_${kind.toUpperCase()}`,
      severity: 'error',
      message: `unknown ${kind} \`${id}\``,
      span: from.source.spanOf(from.source.locate(segments.map(String)).node),
      pointer: toPointer(segments),
      hint: suggestion ? `did you mean \`${suggestion}\`?` : `known ${kind}s: ${set.ids(kind).join(', ') || '(none)'}`,
    },
  ];
}

/** A persona knob that tries to widen its own policy is ignored; say so where it is written. */
function widening(set: DefinitionSet, definition: AnyDefinition & { kind: 'persona' }): Diagnostic[] {
  const view = personaView(definition);
  const policy = view.policy === undefined ? undefined : set.get('policy', view.policy);
  if (policy === undefined) return [];
  const merged = narrowKnobs([
    { source: `policy ${policy.id}`, knobs: { ...policy.data, allowedTools: undefined } as never },
    { source: `persona ${view.id}`, knobs: view.knobs },
  ]);
  const out: Diagnostic[] = merged.widened.map((w) => ({
    code: 'DEF_POLICY_WIDENED',
    severity: 'warning' as const,
    message: `\`${w.knob}: ${String(w.value)}\` would widen policy \`${policy.id}\` (${String(w.kept)}); the policy's value applies`,
    span: definition.source.spanOf(definition.source.locate([w.knob]).node),
    pointer: toPointer([w.knob]),
    hint: 'a persona can only narrow the policy it names',
  }));
  if (merged.knobs.initialPosture && view.knobs.maxPosture && !postureWithin(view.knobs.initialPosture ?? 'plan', view.knobs.maxPosture)) {
    out.push({
      code: 'DEF_POSTURE_ORDER',
      severity: 'warning',
      message: `initialPosture \`${view.knobs.initialPosture}\` is above maxPosture \`${view.knobs.maxPosture}\`; sessions start at the ceiling`,
      span: definition.source.spanOf(definition.source.locate(['initialPosture']).node),
      pointer: '/initialPosture',
    });
  }
  return out;
}
