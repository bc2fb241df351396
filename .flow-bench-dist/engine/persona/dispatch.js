/**
 * Constraints in (seed 004 §2–§3): a persona's knobs — its policy's, then its own frontmatter's
 * — merged narrow-only with the caller's overrides and always capped by the owner policy, become
 * the scope constraints the session service enforces on every start the persona makes. A body
 * that asks for more changes nothing: the ceiling is data. Pure.
 */
import { DEFAULT_MAX_POSTURE, effectivePersonaKnobs, policyKnobs } from '../definitions/index.js';
import { UsageError } from '../util/errors.js';
/** The scope constraints for one dispatch of `persona`; a backend conflict is a usage error. */
export function dispatchKnobs(set, persona, caller) {
    const override = caller?.backendOverride === true ? caller.knobs.backend : undefined;
    const callerLayer = caller === undefined ? undefined : { source: caller.source, knobs: override === undefined ? caller.knobs : withoutBackend(caller.knobs) };
    const effective = effectivePersonaKnobs(set, persona, callerLayer);
    const knobs = { ...effective.knobs };
    const provenance = { ...effective.provenance };
    let conflicts = effective.conflicts;
    if (override !== undefined) {
        const ownerPin = set.ownerPolicy === undefined ? undefined : policyKnobs(set.ownerPolicy).backend;
        if (ownerPin !== undefined && ownerPin !== override) {
            throw new UsageError('PERSONA_KNOB_CONFLICT', `${caller.source} asks for backend \`${override}\` but the owner policy pins \`${ownerPin}\``, { hint: `use --backend ${ownerPin}, or change ${set.ownerPolicy.file}` });
        }
        conflicts = conflicts.filter((c) => c.knob !== 'backend');
        knobs.backend = override;
        provenance.backend = caller.source;
    }
    if (conflicts.length > 0) {
        throw new UsageError('PERSONA_KNOB_CONFLICT', conflicts.map((c) => c.message).join('; '), { hint: 'make the pins agree, or drop one of them' });
    }
    // No ceiling written anywhere still means a ceiling: the default one, never "unbounded".
    const maxPosture = knobs.maxPosture ?? DEFAULT_MAX_POSTURE;
    const constraints = { maxPosture };
    if (knobs.backend !== undefined)
        constraints.backend = knobs.backend;
    if (knobs.maxRounds !== undefined)
        constraints.maxRounds = knobs.maxRounds;
    if (knobs.allowedTools !== undefined)
        constraints.allowedTools = [...knobs.allowedTools];
    return { constraints, initialPosture: knobs.initialPosture ?? maxPosture, knobs: { ...knobs, maxPosture }, provenance };
}
function withoutBackend(knobs) {
    const { backend: _dropped, ...rest } = knobs;
    return rest;
}
