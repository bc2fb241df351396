/**
 * On settle: one outcome record per session the persona drove. The sweep has already released
 * those sessions, so the durable store is the source of truth — each record is checked to be
 * owned by the persona's scope (`runs[].ownerScopeId`) and no longer live.
 */
import type { CodeSessionRecord, PersistedSessionEvent } from '../session/index.js';
import { buildOutcomeRecord, type HarnessOutcomeRecord } from './outcome.js';
import { appendOutcome } from './outcomes-file.js';
import { trackRecords } from './track-records.js';
import { defined } from '../util/defined.js';

/** The slice of the session store the recorder reads. */
export interface SessionRecordSource {
  get(sessionId: string): Promise<CodeSessionRecord | null>;
  readEvents(sessionId: string): Promise<PersistedSessionEvent[] | null>;
  list(): Promise<CodeSessionRecord[]>;
}

export interface RecordScopeOptions {
  home: string;
  store: SessionRecordSource;
  scope: string;
  /** The sessions to consider (seen being created); default: every record the scope owns. */
  sessionIds?: readonly string[];
  persona?: string;
  /** The driver's failure reason per session, for verdicts that are not success. */
  failureReasons?: ReadonlyMap<string, string>;
  now?: () => Date;
}

export interface RecordScopeResult {
  /** One per session of the scope, in creation order. */
  records: HarnessOutcomeRecord[];
  /** How many were new (the rest were recorded before). */
  appended: number;
}

export async function recordScopeOutcomes(options: RecordScopeOptions): Promise<RecordScopeResult> {
  const now = options.now ?? (() => new Date());
  const candidates =
    options.sessionIds !== undefined
      ? (await Promise.all(options.sessionIds.map((id) => options.store.get(id)))).filter(
          (r): r is CodeSessionRecord => r !== null,
        )
      : await options.store.list();
  const owned = candidates
    .filter(
      (r) => r.runs.some((run) => run.ownerScopeId === options.scope) && r.status !== 'running' && r.status !== 'idle',
    )
    .sort((a, b) => (a.createdAt < b.createdAt ? -1 : a.createdAt > b.createdAt ? 1 : 0));
  const records: HarnessOutcomeRecord[] = [];
  let appended = 0;
  for (const record of owned) {
    const events = (await options.store.readEvents(record.sessionId)) ?? [];
    const failureReason = options.failureReasons?.get(record.sessionId);
    const outcome = buildOutcomeRecord(record, events, {
      scope: options.scope,
      recordedAt: now().toISOString(),
      ...defined({ persona: options.persona, failureReason }),
    });
    records.push(outcome);
    if (await appendOutcome(options.home, outcome)) appended++;
  }
  if (appended > 0) trackRecords(options.home).invalidate();
  return { records, appended };
}
