/**
 * One outcome record per code session a persona drove (seed 004 §7): what ran (backend, concrete
 * model, effort, tags), what it cost (rounds, time, dollars summed across turns), how it ended
 * (the verdict of who drove it — a persona, a flow's gate, or the person who stopped it — else
 * inferred: inference never claims `partial`, which only a judge can) and how much a person had
 * to step in. Built from the durable record and its events,
 * never from memory, so a released session is described exactly as it happened. Pure.
 */
import type { Effort } from '../definitions/index.js';
import type { CodeSessionRecord, PersistedSessionEvent, StopOutcome } from '../session/index.js';
import { countInterventions, type Interventions } from './interventions.js';
import { defined } from '../util/defined.js';

/** A line of `learning/harness-outcomes.jsonl`. */
export interface HarnessOutcomeRecord {
  version: 1;
  sessionId: string;
  recordedAt: string;
  /** The ownership scope that drove it. */
  scope: string;
  persona?: string;
  backendId: string;
  /** The concrete model id (never a class sentinel), when known. */
  model?: string;
  effort?: Effort;
  taskTags: string[];
  rounds: number;
  durationMs: number;
  /** Summed across turns; absent when the backend reported none. */
  costUsd?: number;
  outcome: StopOutcome;
  /** Who judged it: a driver (a persona, a flow's gate), the person who stopped it, or nobody (inferred). */
  outcomeSource: 'driver' | 'person' | 'inferred';
  interventions: Interventions;
  failureReason?: string;
  driverNote?: string;
}

export interface OutcomeContext {
  scope: string;
  persona?: string;
  /** The driver's one-line reason for a verdict that is not success. */
  failureReason?: string;
  /** Who gave the record's verdict, when it has one (default: a driver). */
  judge?: 'driver' | 'person';
  recordedAt: string;
}

/** The outcome record of one released session. */
export function buildOutcomeRecord(
  record: CodeSessionRecord,
  events: readonly PersistedSessionEvent[],
  context: OutcomeContext,
): HarnessOutcomeRecord {
  const inferred = inferOutcome(events);
  const outcome = record.outcome ?? inferred.outcome;
  const model = record.model ?? modelFromEvents(events);
  const effort = record.effort ?? effortFromEvents(events);
  const cost = costOf(events);
  const failureReason = outcome === 'success' ? undefined : (context.failureReason ?? inferred.reason);
  return {
    version: 1,
    sessionId: record.sessionId,
    recordedAt: context.recordedAt,
    scope: context.scope,
    ...defined({ persona: context.persona }),
    backendId: record.backendId,
    ...defined({ model, effort }),
    taskTags: [...record.taskTags],
    rounds: record.roundsElapsed,
    durationMs: durationOf(record, events),
    ...defined({ costUsd: cost }),
    outcome,
    outcomeSource: record.outcome === undefined ? 'inferred' : (context.judge ?? 'driver'),
    interventions: countInterventions(events),
    ...defined({ failureReason, driverNote: record.note }),
  };
}

/**
 * How a session ended when its driver gave no verdict: the agent closing it cleanly, or a
 * person stopping it after a turn that completed cleanly, is a success; an agent failure, a
 * stall or a spent round budget is a failure; a release with none of these (the driver walked
 * away, a sweep, an interrupt) is aborted. Never `partial`.
 */
export function inferOutcome(events: readonly PersistedSessionEvent[]): {
  outcome: Exclude<StopOutcome, 'partial'>;
  reason?: string;
} {
  const released = [...events].reverse().find((e) => e.event.type === 'released')?.event;
  for (let i = events.length - 1; i >= 0; i--) {
    const e = events[i]!.event;
    switch (e.type) {
      case 'interrupt':
        return { outcome: 'aborted', reason: 'interrupted before a verdict' };
      case 'turn_complete':
        if (released?.type === 'released' && released.reason === 'explicit') return { outcome: 'success' };
        i = 0;
        break;
      case 'ended':
        return e.ok
          ? { outcome: 'success' }
          : {
              outcome: 'failed',
              reason: `the agent ended the session with a failure${e.text ? `: ${clip(e.text)}` : ''}`,
            };
      case 'error':
        return { outcome: 'failed', reason: `agent error: ${clip(e.message)}` };
      case 'stalled':
        return { outcome: 'failed', reason: `stalled: no agent event for ${Math.round(e.idleMs / 1000)}s` };
      case 'max_rounds':
        return { outcome: 'failed', reason: `the round cap (${e.rounds}) was reached without a verdict` };
      default:
        continue;
    }
  }
  const why =
    released?.type === 'released'
      ? `released (${released.reason}) without a verdict`
      : 'no verdict and no end of session was recorded';
  return { outcome: 'aborted', reason: why };
}

function modelFromEvents(events: readonly PersistedSessionEvent[]): string | undefined {
  for (const { event } of events) {
    if ((event.type === 'created' || event.type === 'started') && event.model !== undefined) return event.model;
  }
  return undefined;
}

function effortFromEvents(events: readonly PersistedSessionEvent[]): Effort | undefined {
  for (const { event } of events) if (event.type === 'created' && event.effort !== undefined) return event.effort;
  return undefined;
}

/** Per-turn costs (turn_complete, and ended when it closed a turn) added up. */
function costOf(events: readonly PersistedSessionEvent[]): number | undefined {
  let total: number | undefined;
  for (const { event } of events) {
    if ((event.type === 'turn_complete' || event.type === 'ended') && typeof event.costUsd === 'number')
      total = (total ?? 0) + event.costUsd;
  }
  return total === undefined ? undefined : Math.round(total * 1e8) / 1e8;
}

/** From this run's first event (created or adopted) to its release. */
function durationOf(record: CodeSessionRecord, events: readonly PersistedSessionEvent[]): number {
  const begin =
    [...events].reverse().find((e) => e.event.type === 'created' || e.event.type === 'adopted')?.at ?? record.createdAt;
  const end =
    [...events].reverse().find((e) => e.event.type === 'released')?.at ?? events.at(-1)?.at ?? record.updatedAt;
  return Math.max(0, Date.parse(end) - Date.parse(begin));
}

function clip(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > 200 ? `${flat.slice(0, 199)}…` : flat;
}
