/**
 * One distillation pass (seed 004 §7): decay the lessons, read the outcomes since the cursor, ask
 * the model for short scoped lessons, upsert/reinforce them, evict and cap, then persist the
 * lessons and the cursor together, atomically. A failed model call fails the pass and writes
 * nothing (the cursor stays, so the next pass sees the same outcomes).
 */
import { randomBytes } from 'node:crypto';
import { DISTILL_SYSTEM, distillMessage, parseDistillAnswer } from './distill-prompt.js';
import { decayLesson, evictLessons, upsertLesson, type Lesson } from './lesson.js';
import { readLessonsFile, writeLessonsFile } from './lessons-file.js';
import { invalidateLessonBlocks } from './lesson-block.js';
import { readOutcomes } from './outcomes-file.js';
import { defined } from '../util/defined.js';

/** Asks the model; resolves with its text answer. */
export type DistilModel = (prompt: { system: string; message: string }) => Promise<string>;

export interface DistillOptions {
  home: string;
  distil: DistilModel;
  /** Backend ids a backend-scoped lesson may name. */
  backends: readonly string[];
  now?: () => number;
  /** Read outcomes recorded at or after this instant instead of after the cursor. */
  since?: number;
  /** Compute everything, write nothing. */
  dryRun?: boolean;
  /** Decision log (JSON lines). */
  log?: (level: 'info' | 'warn', event: string, fields: Record<string, unknown>) => void;
  newId?: () => string;
}

export interface DistillReport {
  outcomes: number;
  /** Whether the model was asked (not when no outcome is new). */
  asked: boolean;
  added: number;
  reinforced: number;
  dropped: Array<{ reason: string; item?: unknown }>;
  evicted: Lesson[];
  lessons: Lesson[];
  cursor?: string;
  written: boolean;
}

export async function runDistillPass(options: DistillOptions): Promise<DistillReport> {
  const now = (options.now ?? Date.now)();
  const log = options.log ?? (() => {});
  const newId = options.newId ?? (() => `ls_${randomBytes(5).toString('hex')}`);
  const file = await readLessonsFile(options.home);
  let lessons = file.lessons.map((l) => decayLesson(l, now));

  const all = await readOutcomes(options.home);
  const fresh = all.filter((r) =>
    options.since !== undefined
      ? Date.parse(r.recordedAt) >= options.since
      : file.cursor === undefined || r.recordedAt > file.cursor,
  );
  const report: DistillReport = {
    outcomes: fresh.length,
    asked: false,
    added: 0,
    reinforced: 0,
    dropped: [],
    evicted: [],
    lessons: [],
    written: false,
  };
  if (fresh.length > 0) {
    const answer = await options.distil({
      system: DISTILL_SYSTEM,
      message: distillMessage(fresh, lessons, options.backends),
    });
    report.asked = true;
    const parsed = parseDistillAnswer(answer, options.backends);
    report.dropped = parsed.dropped;
    for (const drop of parsed.dropped) log('warn', 'learn_lesson_dropped', { reason: drop.reason, item: drop.item });
    for (const candidate of parsed.candidates) {
      const result = upsertLesson(lessons, candidate, now, newId);
      lessons = result.lessons;
      if (result.reinforced) report.reinforced++;
      else report.added++;
    }
  }
  const { kept, evicted } = evictLessons(lessons);
  report.evicted = evicted;
  report.lessons = kept;
  for (const lesson of evicted)
    log('info', 'learn_lesson_evicted', { id: lesson.id, confidence: lesson.confidence, text: lesson.text });
  const newest = fresh.reduce<string | undefined>(
    (max, r) => (max === undefined || r.recordedAt > max ? r.recordedAt : max),
    undefined,
  );
  const cursor = newest !== undefined && (file.cursor === undefined || newest > file.cursor) ? newest : file.cursor;
  if (cursor !== undefined) report.cursor = cursor;
  if (options.dryRun !== true) {
    await writeLessonsFile(options.home, {
      version: 1,
      ...defined({ cursor }),
      distilledAt: new Date(now).toISOString(),
      lessons: kept,
    });
    invalidateLessonBlocks(options.home);
    report.written = true;
  }
  log('info', 'learn_distilled', {
    outcomes: report.outcomes,
    added: report.added,
    reinforced: report.reinforced,
    dropped: report.dropped.length,
    evicted: evicted.length,
    lessons: kept.length,
    dryRun: options.dryRun === true,
  });
  return report;
}

/** Removes one lesson by id; resolves whether it was there. */
export async function forgetLesson(home: string, id: string): Promise<boolean> {
  const file = await readLessonsFile(home);
  const kept = file.lessons.filter((l) => l.id !== id);
  if (kept.length === file.lessons.length) return false;
  await writeLessonsFile(home, { ...file, lessons: kept });
  invalidateLessonBlocks(home);
  return true;
}
