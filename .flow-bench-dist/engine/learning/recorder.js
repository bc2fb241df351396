import { buildOutcomeRecord } from './outcome.js';
import { appendOutcome } from './outcomes-file.js';
import { trackRecords } from './track-records.js';
export async function recordScopeOutcomes(options) {
    const now = options.now ?? (() => new Date());
    const candidates = options.sessionIds !== undefined
        ? (await Promise.all(options.sessionIds.map((id) => options.store.get(id)))).filter((r) => r !== null)
        : await options.store.list();
    const owned = candidates
        .filter((r) => r.runs.some((run) => run.ownerScopeId === options.scope) && r.status !== 'running' && r.status !== 'idle')
        .sort((a, b) => (a.createdAt < b.createdAt ? -1 : a.createdAt > b.createdAt ? 1 : 0));
    const records = [];
    let appended = 0;
    for (const record of owned) {
        const events = (await options.store.readEvents(record.sessionId)) ?? [];
        const failureReason = options.failureReasons?.get(record.sessionId);
        const outcome = buildOutcomeRecord(record, events, {
            scope: options.scope,
            recordedAt: now().toISOString(),
            ...(options.persona === undefined ? {} : { persona: options.persona }),
            ...(failureReason === undefined ? {} : { failureReason }),
        });
        records.push(outcome);
        if (await appendOutcome(options.home, outcome))
            appended++;
    }
    if (appended > 0)
        trackRecords(options.home).invalidate();
    return { records, appended };
}
