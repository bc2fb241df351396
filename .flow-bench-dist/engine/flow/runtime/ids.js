import { randomBytes } from 'node:crypto';
/**
 * A new run id: sortable by time, safe in a path and a git branch name
 * (`20260130-142501-3fa9c2`).
 */
export function newRunId(now = new Date()) {
    const pad = (n, width = 2) => String(n).padStart(width, '0');
    const stamp = `${now.getUTCFullYear()}${pad(now.getUTCMonth() + 1)}${pad(now.getUTCDate())}-${pad(now.getUTCHours())}${pad(now.getUTCMinutes())}${pad(now.getUTCSeconds())}`;
    return `${stamp}-${randomBytes(3).toString('hex')}`;
}
/** A sub-flow's run id: derived from its parent's, so a resumed parent finds the same child. */
export function childRunId(parent, unit, iteration, attempt) {
    return `${parent}.${unit.replace(/[^\w-]/g, '_')}.${iteration}-${attempt}`;
}
