/**
 * Constraints in (seed 004 §2–§3): a persona's knobs — its policy's, then its own frontmatter's
 * — merged narrow-only with the caller's overrides and always capped by the owner policy, become
 * the scope constraints the session service enforces on every start the persona makes. A body
 * that asks for more changes nothing: the ceiling is data. Pure.
 */
import {
  effectivePersonaKnobs,
  policyKnobs,
  type Definition,
  type DefinitionSet,
  type KnobProvenance,
  type Posture,
  type SessionKnobs,
} from '../definitions/index.js';
import { DEFAULT_MAX_POSTURE } from '../posture/index.js';
import type { ScopeConstraints } from '../session/index.js';
import { UsageError } from '../util/errors.js';

/** Who dispatches the persona and what they narrow (a flow step, `--backend`, a delegate call). */
export interface DispatchCaller {
  source: string;
  knobs: SessionKnobs;
  /**
   * The caller's backend is an explicit choice (`--backend`): it replaces the persona's and its
   * policy's pin instead of conflicting with it. The owner policy's pin still cannot be replaced.
   */
  backendOverride?: boolean;
}

/** What a dispatch registers and starts with. */
export interface DispatchKnobs {
  constraints: ScopeConstraints;
  /** The posture sessions start in (never above the ceiling). */
  initialPosture: Posture;
  knobs: SessionKnobs;
  provenance: KnobProvenance;
}

/** The scope constraints for one dispatch of `persona`; a backend conflict is a usage error. */
export function dispatchKnobs(
  set: DefinitionSet,
  persona: Definition<'persona'>,
  caller?: DispatchCaller,
): DispatchKnobs {
  const override = caller?.backendOverride === true ? caller.knobs.backend : undefined;
  const callerLayer =
    caller === undefined
      ? undefined
      : { source: caller.source, knobs: override === undefined ? caller.knobs : withoutBackend(caller.knobs) };
  const effective = effectivePersonaKnobs(set, persona, callerLayer);
  const knobs: SessionKnobs = { ...effective.knobs };
  const provenance: KnobProvenance = { ...effective.provenance };
  let conflicts = effective.conflicts;
  if (override !== undefined) {
    const ownerPin = set.ownerPolicy === undefined ? undefined : policyKnobs(set.ownerPolicy).backend;
    if (ownerPin !== undefined && ownerPin !== override) {
      throw new UsageError(
        'PERSONA_KNOB_CONFLICT',
        `${caller!.source} asks for backend \`${override}\` but the owner policy pins \`${ownerPin}\``,
        { hint: `use --backend ${ownerPin}, or change ${set.ownerPolicy!.file}` },
      );
    }
    conflicts = conflicts.filter((c) => c.knob !== 'backend');
    knobs.backend = override;
    provenance.backend = caller!.source;
  }
  if (conflicts.length > 0) {
    throw new UsageError('PERSONA_KNOB_CONFLICT', conflicts.map((c) => c.message).join('; '), {
      hint: 'make the pins agree, or drop one of them',
    });
  }
  // No ceiling written anywhere still means a ceiling: the default one, never "unbounded".
  const maxPosture = knobs.maxPosture ?? DEFAULT_MAX_POSTURE;
  const constraints: ScopeConstraints = { maxPosture };
  if (knobs.backend !== undefined) constraints.backend = knobs.backend;
  if (knobs.maxRounds !== undefined) constraints.maxRounds = knobs.maxRounds;
  if (knobs.allowedTools !== undefined) constraints.allowedTools = [...knobs.allowedTools];
  return {
    constraints,
    initialPosture: knobs.initialPosture ?? maxPosture,
    knobs: { ...knobs, maxPosture },
    provenance,
  };
}

function withoutBackend(knobs: SessionKnobs): SessionKnobs {
  const { backend: _dropped, ...rest } = knobs;
  return rest;
}
