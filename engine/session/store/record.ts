/** The durable record of one code session: `code-sessions/<id>/meta.json` (seed 004 §4). */
import type { ProvisionMeta } from '../../capabilities/index.js';
import type { Effort, Posture } from '../../definitions/index.js';
import { isSameProcess, selfIdentity, type ProcessIdentity } from '../../execution/index.js';
import type { StopOutcome } from '../contract.js';
import type { SessionStateName, SessionStatus } from '../machine.js';

/** One link of the resume chain. */
export interface CodeSessionRun {
  startedAt: string;
  /** The backend's own session id (its resume target), once known. */
  externalSessionId?: string;
  ownerScopeId: string;
  /** The process that hosted this run (the session daemon, or the command running it in process). */
  host?: ProcessIdentity;
}

export interface CodeSessionRecord {
  sessionId: string;
  backendId: string;
  cwd: string;
  /** The concrete model id (never a class sentinel). */
  model?: string;
  effort?: Effort;
  maxPosture: Posture;
  /** The posture now. */
  posture?: Posture;
  maxRounds?: number;
  /** The brief, cut to {@link TASK_BRIEF_MAX_CHARS}. */
  taskBrief: string;
  taskTags: string[];
  status: SessionStatus;
  /** The lifecycle state behind the status (finer: stalled, awaitingAnswer, maxRounds, …). */
  state?: SessionStateName;
  createdAt: string;
  updatedAt: string;
  roundsElapsed: number;
  costUsd?: number;
  runs: CodeSessionRun[];
  /** The driver's verdict at stop. */
  outcome?: StopOutcome;
  note?: string;
  /** What capability curation detected, applied, ignored (with why) and deferred for this session. */
  provision?: ProvisionMeta;
  version: 1;
}

/** Mutable fields of a record. */
export type RecordPatch = Partial<Omit<CodeSessionRecord, 'sessionId' | 'createdAt' | 'version'>>;

/** 2 KB: the brief is for a list view and the learning record, not an archive. */
export const TASK_BRIEF_MAX_CHARS = 2048;

/** Cuts a brief to the record's limit, marking the cut. */
export function truncateBrief(brief: string): string {
  if (brief.length <= TASK_BRIEF_MAX_CHARS) return brief;
  return `${brief.slice(0, TASK_BRIEF_MAX_CHARS - 1)}…`;
}

/** Whether a parsed meta.json has the shape of a record (a hand-edited or foreign file may not). */
export function isRecord(value: unknown): value is CodeSessionRecord {
  if (typeof value !== 'object' || value === null) return false;
  const r = value as Partial<CodeSessionRecord>;
  return (
    typeof r.sessionId === 'string' &&
    typeof r.status === 'string' &&
    typeof r.createdAt === 'string' &&
    Array.isArray(r.runs) &&
    r.version === 1
  );
}

/** A new link of the resume chain, hosted by this process. */
export function newRun(ownerScopeId: string, startedAt: string): CodeSessionRun {
  return { startedAt, ownerScopeId, host: selfIdentity() };
}

/**
 * Whether a session is an orphan: marked so by a sweep, or still recorded live while the process
 * that hosted its latest run is no longer that process (killed; a recycled pid does not count).
 */
export function isOrphaned(record: CodeSessionRecord): boolean {
  if (record.status === 'orphaned') return true;
  if (record.status !== 'running' && record.status !== 'idle') return false;
  const host = record.runs.at(-1)?.host;
  return host !== undefined && !isSameProcess(host);
}
