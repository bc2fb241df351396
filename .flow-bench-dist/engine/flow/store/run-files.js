import { join } from 'node:path';
/** The run's folder and files under NEO_HOME. */
export function runDir(home, runId) {
    return join(home, 'runs', runId);
}
export const RUN_FILES = {
    record: 'run.json',
    plan: 'plan.json',
    snapshot: 'snapshot.json',
    events: 'events.jsonl',
    lock: 'lock',
};
