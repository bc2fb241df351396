/**
 * The outcome of every session nobody else records: the session service calls this hook once
 * per released session whose scope does not record its own (personas do, with their verdict).
 *
 * - A flow step's session is stopped by the flow with the verdict its gate, its change check
 *   and its schema gave (never the agent's own claim), so that verdict is the outcome and the
 *   stop note its failure reason.
 * - A person's `neo session` run is judged by that person: the verdict they stop it with
 *   (`neo session stop --outcome partial --note …`) is the outcome, recorded as theirs, and the
 *   note its reason; a stop without one is inferred from the events (never `partial`).
 */
import { guardedMetrics, SESSION_METRICS, type MetricsSink } from '../observability/index.js';
import type { ReleasedHook } from '../session/index.js';
import { buildOutcomeRecord, type HarnessOutcomeRecord } from './outcome.js';
import { appendOutcome } from './outcomes-file.js';
import { trackRecords } from './track-records.js';
import { defined } from '../util/defined.js';

export interface ReleaseRecorderOptions {
  home: string;
  /**
   * `stop`: the stop's verdict is the outcome, a driver's (a flow's gate); `person`: a person's
   * stop verdict when they gave one, else inferred from the events.
   */
  verdict: 'stop' | 'person';
  metrics?: MetricsSink;
  now?: () => Date;
  /** Told each new record (decision logs). */
  recorded?: (record: HarnessOutcomeRecord) => void;
}

export function releaseRecorder(options: ReleaseRecorderOptions): ReleasedHook {
  const metrics = guardedMetrics(options.metrics);
  const now = options.now ?? (() => new Date());
  return async ({ sessionId, scope, durationMs, store }) => {
    const record = await store.get(sessionId);
    if (record === null) return;
    const events = (await store.readEvents(sessionId)) ?? [];
    const failureReason = record.outcome !== undefined && record.outcome !== 'success' ? record.note : undefined;
    const outcome = buildOutcomeRecord(record, events, {
      scope,
      recordedAt: now().toISOString(),
      judge: options.verdict === 'person' ? 'person' : 'driver',
      ...defined({ failureReason }),
    });
    if (!(await appendOutcome(options.home, outcome))) return;
    trackRecords(options.home).invalidate();
    metrics.increment(SESSION_METRICS.settled, { backend: outcome.backendId, outcome: outcome.outcome });
    metrics.observe(SESSION_METRICS.settleDurationMs, durationMs, { backend: outcome.backendId });
    options.recorded?.(outcome);
  };
}
