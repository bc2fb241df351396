import { didYouMean } from '../util/did-you-mean.js';
import type { DefinitionSet } from './definition-set.js';
import type { Diagnostic } from './diagnostic.js';
import { toPointer } from './diagnostic.js';
import { checkFlow } from './flow-check.js';
import type { AnyDefinition } from './definition.js';
import { DEFAULT_MAX_POSTURE, commandRuleProblem, minPosture, underCeiling } from '../posture/index.js';
import { narrowKnobs } from './policy.js';
import { personaView } from './persona-view.js';
import { checkProtect } from './protect-check.js';
import { checkScriptFiles, scriptFilesKey } from './script-check.js';

/** Remembers each definition's reference diagnostics and what they depended on. */
export type ReferenceCache = WeakMap<AnyDefinition, { key: string; diagnostics: Diagnostic[] }>;

/**
 * Cross-reference checks that run after schema validation: a persona's backend pin and policy
 * exist, a policy's backend exists, a flow's steps, needs and expressions resolve. With a cache,
 * a definition is re-checked only when it or a definition it references changed — so a hot
 * reload re-validates the edited file and its dependents, not the whole tree.
 */
export function checkReferences(set: DefinitionSet, cache?: ReferenceCache): Diagnostic[] {
  const out: Diagnostic[] = [];
  const idLists = new Map<string, string>();
  for (const definition of set.all()) {
    if (cache === undefined) {
      out.push(...checkOne(set, definition));
      continue;
    }
    const key = referenceKey(set, definition, idLists);
    const hit = cache.get(definition);
    if (hit !== undefined && hit.key === key) {
      out.push(...hit.diagnostics);
      continue;
    }
    const diagnostics = checkOne(set, definition);
    cache.set(definition, { key, diagnostics });
    out.push(...diagnostics);
  }
  return out;
}

/** The ids a definition refers to, by kind. */
function referencesOf(definition: AnyDefinition): Array<['persona' | 'backend' | 'policy', string | undefined]> {
  switch (definition.kind) {
    case 'persona':
      return [
        ['backend', definition.data.backend],
        ['policy', definition.data.policy],
        ...(definition.data.rules?.prefer ?? []).map((id) => ['backend', id] as ['backend', string]),
      ];
    case 'policy':
      return [['backend', definition.data.backend]];
    case 'flow': {
      const data = definition.data;
      const refs: Array<['persona' | 'backend' | 'policy', string | undefined]> = [
        ['backend', data.defaults?.backend],
        ['policy', data.defaults?.policy],
      ];
      for (const step of [...data.steps, ...(data.finally ?? [])])
        refs.push(['persona', step.persona], ['backend', step.backend], ['policy', step.policy]);
      return refs;
    }
    default:
      return [];
  }
}

/**
 * What a definition's reference diagnostics depend on: itself, and what it names (or that it is
 * missing, and which ids exist). The build stores each packaged definition's key in its snapshot
 * (packaged-snapshot.ts): a loader seeds its cache with them, so a packaged definition whose
 * references are what they were at build time (and had no problem then) is not checked again.
 */
export function referenceKey(
  set: DefinitionSet,
  definition: AnyDefinition,
  idLists = new Map<string, string>(),
): string {
  const parts = [definition.digest];
  for (const [kind, id] of referencesOf(definition)) {
    if (id === undefined) continue;
    const target = set.get(kind, id);
    if (target !== undefined) parts.push(`${kind}:${id}=${target.digest}`);
    else {
      if (!idLists.has(kind)) idLists.set(kind, set.ids(kind).join(','));
      parts.push(`${kind}:${id}?${idLists.get(kind)}`);
    }
  }
  if (definition.kind === 'flow') parts.push(scriptFilesKey(definition));
  return parts.join('|');
}

function checkOne(set: DefinitionSet, definition: AnyDefinition): Diagnostic[] {
  const out: Diagnostic[] = [];
  {
    switch (definition.kind) {
      case 'persona': {
        const data = definition.data;
        out.push(...ref(set, definition, 'backend', data.backend, ['backend']));
        out.push(...ref(set, definition, 'policy', data.policy, ['policy']));
        data.rules?.prefer?.forEach((id, i) =>
          out.push(...ref(set, definition, 'backend', id, ['rules', 'prefer', i])),
        );
        out.push(...widening(set, definition));
        out.push(...startAboveCeiling(set, definition));
        out.push(...commandRules(definition));
        out.push(...checkProtect(() => definition.source, data.protect, ['protect']));
        break;
      }
      case 'policy':
        out.push(...ref(set, definition, 'backend', definition.data.backend, ['backend']));
        break;
      case 'flow':
        out.push(...checkFlow(definition, set));
        out.push(...checkScriptFiles(definition));
        break;
      default:
        break;
    }
  }
  return out;
}

/** An allow rule's command that no command could ever match (docs/flows.md, Command rules). */
function commandRules(definition: AnyDefinition & { kind: 'persona' }): Diagnostic[] {
  const out: Diagnostic[] = [];
  definition.data.rules?.clarify?.forEach((rule, i) => {
    if (rule.decision !== 'allow' || rule.command === undefined) return;
    const problem = commandRuleProblem(rule.command);
    if (problem === undefined) return;
    const segments = ['rules', 'clarify', i, 'command'];
    out.push({
      code: 'DEF_COMMAND_RULE',
      severity: 'error',
      message: `allow rule \`${rule.command}\` can never match: ${problem}`,
      span: definition.source.spanOf(definition.source.locate(segments.map(String)).node),
      pointer: toPointer(segments),
      hint: 'a rule names one command as words (`*` globbing within a word, a last word ending in `*` taking any further words); put anything more in a script and allow that',
    });
  });
  return out;
}

function ref(
  set: DefinitionSet,
  from: AnyDefinition,
  kind: 'backend' | 'policy',
  id: string | undefined,
  segments: Array<string | number>,
): Diagnostic[] {
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
  return merged.widened.map((w) => ({
    code: 'DEF_POLICY_WIDENED',
    severity: 'warning' as const,
    message: `\`${w.knob}: ${String(w.value)}\` would widen policy \`${policy.id}\` (${String(w.kept)}); the policy's value applies`,
    span: definition.source.spanOf(definition.source.locate([w.knob]).node),
    pointer: toPointer([w.knob]),
    hint: 'a persona can only narrow the policy it names',
  }));
}

/**
 * A persona's `initialPosture` is a default, so above its ceiling (its `maxPosture` under its policy's, else the
 * default ceiling) it is held down, not refused: a warning where it is written. The comparison is the one ceiling
 * rule (engine/posture `underCeiling`); the code is a definition warning's, since nothing is refused.
 */
function startAboveCeiling(set: DefinitionSet, definition: AnyDefinition & { kind: 'persona' }): Diagnostic[] {
  const view = personaView(definition);
  const policy = view.policy === undefined ? undefined : set.get('policy', view.policy);
  const ceilings = [policy?.data.maxPosture, view.knobs.maxPosture].filter((p) => p !== undefined);
  const ceiling = ceilings.length === 0 ? DEFAULT_MAX_POSTURE : ceilings.reduce(minPosture);
  // Claude Code's `permissionMode` is the initial posture when `initialPosture` is not written.
  const field = definition.data.initialPosture === undefined ? 'permissionMode' : 'initialPosture';
  const asked = field === 'initialPosture' ? field : 'the posture of permissionMode';
  const verdict = underCeiling(asked, view.knobs.initialPosture, {
    posture: ceiling,
    name: ceilings.length === 0 ? 'the default ceiling' : "this persona's ceiling",
  });
  if (verdict.ok) return [];
  return [
    {
      code: 'DEF_POSTURE_ORDER',
      severity: 'warning',
      message: `${verdict.message}; its sessions start at \`${ceiling}\``,
      span: definition.source.spanOf(definition.source.locate([field]).node),
      pointer: toPointer([field]),
      hint: `start at \`${ceiling}\` or less, or raise \`maxPosture\``,
    },
  ];
}
