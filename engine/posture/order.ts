/**
 * The posture and effort orders, and the comparisons every layer uses on them. Postures go from
 * least to most permissive (seed 004 §3): plan < default < acceptEdits < full.
 */
import type { Effort, Posture } from '../generated/common.js';

export type { Effort, Posture };

/** Postures from least to most permissive. */
export const POSTURES: readonly Posture[] = ['plan', 'default', 'acceptEdits', 'full'];

/** Efforts from least to most. */
export const EFFORTS: readonly Effort[] = ['low', 'medium', 'high', 'max'];

/** The ceiling when nothing sets one (seed 004 §1). */
export const DEFAULT_MAX_POSTURE: Posture = 'acceptEdits';

export function postureRank(posture: Posture): number {
  return POSTURES.indexOf(posture);
}

export function isPosture(value: unknown): value is Posture {
  return typeof value === 'string' && (POSTURES as readonly string[]).includes(value);
}

/** The less permissive of two postures. */
export function minPosture(a: Posture, b: Posture): Posture {
  return postureRank(a) <= postureRank(b) ? a : b;
}

/** Whether `posture` is within `ceiling` (at most as permissive). */
export function postureWithin(posture: Posture, ceiling: Posture): boolean {
  return postureRank(posture) <= postureRank(ceiling);
}

/** Whether `effort` is at most `ceiling`. */
export function effortWithin(effort: Effort, ceiling: Effort): boolean {
  return EFFORTS.indexOf(effort) <= EFFORTS.indexOf(ceiling);
}
