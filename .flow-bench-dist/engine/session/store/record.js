/** 2 KB: the brief is for a list view and the learning record, not an archive. */
export const TASK_BRIEF_MAX_CHARS = 2048;
/** Cuts a brief to the record's limit, marking the cut. */
export function truncateBrief(brief) {
    if (brief.length <= TASK_BRIEF_MAX_CHARS)
        return brief;
    return `${brief.slice(0, TASK_BRIEF_MAX_CHARS - 1)}…`;
}
/** Whether a parsed meta.json has the shape of a record (a hand-edited or foreign file may not). */
export function isRecord(value) {
    if (typeof value !== 'object' || value === null)
        return false;
    const r = value;
    return typeof r.sessionId === 'string' && typeof r.status === 'string' && typeof r.createdAt === 'string' && Array.isArray(r.runs) && r.version === 1;
}
