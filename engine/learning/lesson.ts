/**
 * A distilled lesson and the bounds every pass keeps (seed 004 §7), as pure functions of the
 * lessons and `now`: decay, upsert/reinforce, eviction and the cap. No I/O, no clock of its own.
 *
 * Decay is non-compounding: a lesson keeps the confidence it had when it was last created or
 * reinforced (`baseConfidence`, at `reinforcedAt`) and its confidence now is that times
 * DECAY_PER_WEEK per whole week since. Running the pass twice in a week decays it once, not twice.
 */

export const MAX_LESSONS = 40;
export const MAX_LESSON_CHARS = 300;
export const DECAY_PER_WEEK = 0.95;
export const EVICT_BELOW = 0.3;
export const NEW_LESSON_CONFIDENCE = 0.6;
export const REINFORCE_STEP = 0.1;
export const INJECT_MIN_EVIDENCE = 2;
export const WEEK_MS = 7 * 24 * 60 * 60 * 1000;

/** Who a lesson is about: one backend, one backend's model, or one task tag. */
export type LessonScope = { backendId: string; model?: string } | { taskTag: string };

export interface Lesson {
  id: string;
  text: string;
  scope: LessonScope;
  /** Confidence now (as of the last pass). */
  confidence: number;
  /** Confidence when it was created or last reinforced: what decay starts from. */
  baseConfidence: number;
  /** How many distillations produced it (1 when new). */
  evidenceCount: number;
  createdAt: string;
  reinforcedAt: string;
}

/** A lesson the model proposed, already validated. */
export interface LessonCandidate {
  text: string;
  scope: LessonScope;
}

/** The lesson's confidence at `now`: base × 0.95 per whole unreinforced week. */
export function decayLesson(lesson: Lesson, now: number): Lesson {
  const weeks = Math.max(0, Math.floor((now - Date.parse(lesson.reinforcedAt)) / WEEK_MS));
  return { ...lesson, confidence: round(lesson.baseConfidence * DECAY_PER_WEEK ** weeks) };
}

/** The same scope (backend and model, or tag). */
export function sameScope(a: LessonScope, b: LessonScope): boolean {
  if ('taskTag' in a || 'taskTag' in b) return 'taskTag' in a && 'taskTag' in b && a.taskTag === b.taskTag;
  return a.backendId === b.backendId && a.model === b.model;
}

/** Case and whitespace folded: how two texts are compared. */
export function normalText(text: string): string {
  return text.replace(/\s+/g, ' ').trim().toLowerCase();
}

/**
 * Adds a candidate: one with the same scope and text (or the lesson it names) is reinforced
 * (+0.1, capped at 1, evidence + 1, decay restarts); otherwise it is new at 0.6 with evidence 1.
 */
export function upsertLesson(
  lessons: readonly Lesson[],
  candidate: LessonCandidate & { reinforces?: string },
  now: number,
  newId: () => string,
): { lessons: Lesson[]; reinforced: boolean } {
  const at = new Date(now).toISOString();
  const key = normalText(candidate.text);
  const index = lessons.findIndex(
    (l) =>
      (candidate.reinforces !== undefined && l.id === candidate.reinforces && sameScope(l.scope, candidate.scope)) ||
      (sameScope(l.scope, candidate.scope) && normalText(l.text) === key),
  );
  if (index >= 0) {
    const old = lessons[index]!;
    const confidence = round(Math.min(1, old.confidence + REINFORCE_STEP));
    const next = lessons.slice();
    next[index] = {
      ...old,
      confidence,
      baseConfidence: confidence,
      evidenceCount: old.evidenceCount + 1,
      reinforcedAt: at,
    };
    return { lessons: next, reinforced: true };
  }
  const lesson: Lesson = {
    id: newId(),
    text: candidate.text,
    scope: candidate.scope,
    confidence: NEW_LESSON_CONFIDENCE,
    baseConfidence: NEW_LESSON_CONFIDENCE,
    evidenceCount: 1,
    createdAt: at,
    reinforcedAt: at,
  };
  return { lessons: [...lessons, lesson], reinforced: false };
}

/** Below 0.3 out; past 40, the lowest confidence goes first (the oldest reinforcement on a tie). */
export function evictLessons(lessons: readonly Lesson[]): { kept: Lesson[]; evicted: Lesson[] } {
  const alive = lessons.filter((l) => l.confidence >= EVICT_BELOW);
  const evicted = lessons.filter((l) => l.confidence < EVICT_BELOW);
  if (alive.length <= MAX_LESSONS) return { kept: alive, evicted };
  const ranked = alive
    .map((lesson, order) => ({ lesson, order }))
    .sort(
      (a, b) =>
        b.lesson.confidence - a.lesson.confidence ||
        Date.parse(b.lesson.reinforcedAt) - Date.parse(a.lesson.reinforcedAt) ||
        a.order - b.order,
    );
  const keep = new Set(ranked.slice(0, MAX_LESSONS).map((r) => r.lesson.id));
  return {
    kept: alive.filter((l) => keep.has(l.id)),
    evicted: [...evicted, ...alive.filter((l) => !keep.has(l.id))],
  };
}

/** `[codex · gpt-5]`, `[codex]` or `[tag bugfix]`. */
export function scopeLabel(scope: LessonScope): string {
  if ('taskTag' in scope) return `tag ${scope.taskTag}`;
  return scope.model === undefined ? scope.backendId : `${scope.backendId} · ${scope.model}`;
}

function round(value: number): number {
  return Math.round(value * 1e6) / 1e6;
}
