import type { Effort, Posture } from '../../definitions/index.js';

/** Postures from least to most permissive (seed 004 §3). */
export const POSTURE_ORDER: readonly Posture[] = ['plan', 'default', 'acceptEdits', 'full'];

/** The ceiling when nothing sets one. */
export const DEFAULT_CEILING: Posture = 'acceptEdits';

/** Efforts from least to most. */
export const EFFORT_ORDER: readonly Effort[] = ['low', 'medium', 'high', 'max'];

/** Whether `posture` is at most `ceiling`. */
export function postureAtMost(posture: Posture, ceiling: Posture): boolean {
  return POSTURE_ORDER.indexOf(posture) <= POSTURE_ORDER.indexOf(ceiling);
}

/** Whether `effort` is at most `ceiling`. */
export function effortAtMost(effort: Effort, ceiling: Effort): boolean {
  return EFFORT_ORDER.indexOf(effort) <= EFFORT_ORDER.indexOf(ceiling);
}
