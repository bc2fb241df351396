/**
 * The one ceiling rule every posture request meets at run time, whoever makes it: a session's
 * `maxPosture` against its scope's ceiling (a persona's `maxPosture` reaches a session as that
 * ceiling, and only as that), a start's `initialPosture` against the session's ceiling, a
 * set-posture against it too. A posture asked for explicitly above the ceiling is refused — never
 * clamped, so a driver cannot probe for the ceiling — always with POSTURE_CEILING_EXCEEDED; one
 * left unasked is the fallback, held down to the ceiling.
 */
import { minPosture, postureWithin, type Posture } from './order.js';

/** The one error code of the rule. */
export const POSTURE_CEILING_EXCEEDED = 'POSTURE_CEILING_EXCEEDED';

/** A ceiling, how a message names it ("this scope's ceiling", "the session ceiling"), and what to do instead. */
export interface Ceiling {
  posture: Posture;
  name: string;
  /** The hint of a refusal; by default, to ask for the ceiling or less. */
  hint?: string;
}

export type CeilingVerdict =
  { ok: true; posture: Posture } | { ok: false; code: typeof POSTURE_CEILING_EXCEEDED; message: string; hint: string };

/**
 * `field` asked as `asked` under `ceiling`: the asked posture when within it, a refusal when
 * above it; unasked, `fallback` (the ceiling itself when there is none) held down to the ceiling.
 */
export function underCeiling(
  field: string,
  asked: Posture | undefined,
  ceiling: Ceiling,
  fallback: Posture = ceiling.posture,
): CeilingVerdict {
  if (asked === undefined) return { ok: true, posture: minPosture(fallback, ceiling.posture) };
  if (postureWithin(asked, ceiling.posture)) return { ok: true, posture: asked };
  return {
    ok: false,
    code: POSTURE_CEILING_EXCEEDED,
    message: `${field} \`${asked}\` is above ${ceiling.name} \`${ceiling.posture}\``,
    hint: ceiling.hint ?? `ask for \`${ceiling.posture}\` or less`,
  };
}
