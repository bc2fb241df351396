/**
 * `NEO_HOME/learning/harness-lessons.json`: the lessons and the outcome cursor, written together
 * in one atomic rename so a pass that dies half way leaves the previous file whole. Reading is
 * tolerant: a lesson that does not have the stored shape is left out (the file may be edited by
 * hand), an unreadable file reads as empty.
 */
import { join } from 'node:path';
import { readJsonOrNull, readJsonOrNullSync, writeJsonAtomic } from '../util/atomic-file.js';
import type { Lesson, LessonScope } from './lesson.js';

export interface LessonsFile {
  version: 1;
  /** `recordedAt` of the last outcome a pass consumed. */
  cursor?: string;
  /** When the last pass ran. */
  distilledAt?: string;
  lessons: Lesson[];
}

export function lessonsPath(home: string): string {
  return join(home, 'learning', 'harness-lessons.json');
}

export async function readLessonsFile(home: string): Promise<LessonsFile> {
  return parseLessonsFile(await readJsonOrNull<Partial<LessonsFile>>(lessonsPath(home)).catch(() => null));
}

/**
 * The same, read synchronously: the file is small (at most 40 lessons) and the injection path
 * reads it on a dispatch's critical path, where a thread-pool round trip costs more than the read.
 */
export function readLessonsFileSync(home: string): LessonsFile {
  let raw: Partial<LessonsFile> | null = null;
  try {
    raw = readJsonOrNullSync<Partial<LessonsFile>>(lessonsPath(home));
  } catch {
    raw = null;
  }
  return parseLessonsFile(raw);
}

function parseLessonsFile(raw: Partial<LessonsFile> | null): LessonsFile {
  const lessons = (Array.isArray(raw?.lessons) ? raw.lessons : []).filter(isLesson);
  return {
    version: 1,
    ...(typeof raw?.cursor === 'string' ? { cursor: raw.cursor } : {}),
    ...(typeof raw?.distilledAt === 'string' ? { distilledAt: raw.distilledAt } : {}),
    lessons,
  };
}

export function writeLessonsFile(home: string, file: LessonsFile): Promise<void> {
  return writeJsonAtomic(lessonsPath(home), file);
}

function isLesson(value: unknown): value is Lesson {
  const l = value as Partial<Lesson> | null;
  return (
    typeof l === 'object' &&
    l !== null &&
    typeof l.id === 'string' &&
    typeof l.text === 'string' &&
    typeof l.confidence === 'number' &&
    typeof l.baseConfidence === 'number' &&
    typeof l.evidenceCount === 'number' &&
    typeof l.createdAt === 'string' &&
    typeof l.reinforcedAt === 'string' &&
    isScope(l.scope)
  );
}

function isScope(value: unknown): value is LessonScope {
  const s = value as Record<string, unknown> | null;
  if (typeof s !== 'object' || s === null) return false;
  if (typeof s.taskTag === 'string') return s.backendId === undefined && s.model === undefined;
  return typeof s.backendId === 'string' && (s.model === undefined || typeof s.model === 'string');
}
