/** Postures from least to most permissive (seed 004 §3). */
export const POSTURE_ORDER = ['plan', 'default', 'acceptEdits', 'full'];
/** The ceiling when nothing sets one. */
export const DEFAULT_CEILING = 'acceptEdits';
/** Efforts from least to most. */
export const EFFORT_ORDER = ['low', 'medium', 'high', 'max'];
/** Whether `posture` is at most `ceiling`. */
export function postureAtMost(posture, ceiling) {
    return POSTURE_ORDER.indexOf(posture) <= POSTURE_ORDER.indexOf(ceiling);
}
/** Whether `effort` is at most `ceiling`. */
export function effortAtMost(effort, ceiling) {
    return EFFORT_ORDER.indexOf(effort) <= EFFORT_ORDER.indexOf(ceiling);
}
