/**
 * The learning loop's first half (seed 004 §7): an outcome record per driven session, appended
 * on settle, and the track-record lines list-backends shows. Lessons are read (never written)
 * here for the llm driver's first message.
 */
export { buildOutcomeRecord, inferOutcome, type HarnessOutcomeRecord, type OutcomeContext } from './outcome.js';
export { countInterventions, type Interventions } from './interventions.js';
export { appendOutcome, readOutcomes, outcomesPath } from './outcomes-file.js';
export {
  recordScopeOutcomes,
  type RecordScopeOptions,
  type RecordScopeResult,
  type SessionRecordSource,
} from './recorder.js';
export { trackRecordLines, trackStats, statsOf, ago, MODEL_LINE_MIN_RUNS, type TrackStats } from './track-record.js';
export { TrackRecords, trackRecords, TRACK_RECORD_TTL_MS } from './track-records.js';
export {
  lessonBlock,
  renderLessonBlock,
  lessonsPath,
  INJECT_MIN_EVIDENCE,
  MAX_BLOCK_BYTES,
  type HarnessLesson,
} from './lessons.js';
