/**
 * The learning loop's first half (seed 004 §7): an outcome record per driven session, appended
 * on settle, the track-record lines list-backends shows, the lessons distiller with its bounds,
 * and the low-trust lessons block.
 */
export { buildOutcomeRecord, inferOutcome, type HarnessOutcomeRecord, type OutcomeContext } from './outcome.js';
export { countInterventions, type Interventions } from './interventions.js';
export { appendOutcome, readOutcomes, outcomesPath, isOutcomeRecord } from './outcomes-file.js';
export {
  recordScopeOutcomes,
  type RecordScopeOptions,
  type RecordScopeResult,
  type SessionRecordSource,
} from './recorder.js';
export { trackRecordLines, trackStats, statsOf, ago, MODEL_LINE_MIN_RUNS, type TrackStats } from './track-record.js';
export { releaseRecorder, type ReleaseRecorderOptions } from './release-recorder.js';
export { TrackRecords, trackRecords, TRACK_RECORD_TTL_MS } from './track-records.js';
export {
  MAX_LESSONS,
  MAX_LESSON_CHARS,
  DECAY_PER_WEEK,
  EVICT_BELOW,
  NEW_LESSON_CONFIDENCE,
  REINFORCE_STEP,
  INJECT_MIN_EVIDENCE,
  WEEK_MS,
  decayLesson,
  upsertLesson,
  evictLessons,
  scopeLabel,
  type Lesson,
  type LessonScope,
  type LessonCandidate,
} from './lesson.js';
export { lessonsPath, readLessonsFile, writeLessonsFile, type LessonsFile } from './lessons-file.js';
export {
  lessonBlock,
  renderLessonBlock,
  invalidateLessonBlocks,
  MAX_BLOCK_BYTES,
  INJECTION_TTL_MS,
  type LessonFilter,
} from './lesson-block.js';
export { DISTILL_SYSTEM, distillMessage, parseDistillAnswer, MAX_PROMPT_OUTCOMES } from './distill-prompt.js';
export {
  runDistillPass,
  forgetLesson,
  type DistilModel,
  type DistillOptions,
  type DistillReport,
} from './distiller.js';
export { agentDistil, DISTIL_MODEL_CLASS } from './distil-agent.js';
export {
  scheduledPass,
  scheduleDistill,
  lessonsEnabled,
  auditPath,
  DEFAULT_LESSONS_CRON,
  DISTILL_THROTTLE_MS,
  DISTILL_TIMEOUT_MS,
  DISTILL_TOKEN_RESERVE,
  type AuditLine,
  type ScheduledPassOptions,
} from './nightly.js';
