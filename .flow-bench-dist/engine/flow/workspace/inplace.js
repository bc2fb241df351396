import { realpath } from 'node:fs/promises';
import { join } from 'node:path';
import { contentHash } from '../../util/content-hash.js';
import { NeoError } from '../../util/errors.js';
import { acquireLockFile } from '../store/lock-file.js';
/**
 * The checkout itself, locked against every other run that would work in it: one lock file per
 * repository under NEO_HOME/locks, naming the run that holds it.
 */
export async function lockInPlace(options) {
    const projectDir = await realpath(options.projectDir);
    const root = options.repo === undefined ? projectDir : await realpath(options.repo);
    return lockRecord({ isolation: 'inplace', path: projectDir, root, projectDir, ...(options.repo === undefined ? {} : { repo: root }) }, options.home, options.runId);
}
/** Re-takes the lock of a run being resumed. */
export function relockInPlace(record, home, runId) {
    return lockRecord(record, home, runId);
}
async function lockRecord(record, home, runId) {
    const path = join(home, 'locks', `${contentHash(record.root).slice(0, 16)}.lock`);
    const lock = await acquireLockFile(path, { pid: process.pid, runId, at: new Date().toISOString() }, (holder) => new NeoError('FLOW_WORKSPACE_LOCKED', `${record.root} is in use by run ${holder.runId} (pid ${holder.pid})`, {
        hint: 'wait for it to finish, or use `workspace.isolation: worktree` so runs never share a checkout',
    }));
    return {
        record,
        warnings: [],
        release: () => lock.release(),
        async finish() {
            await lock.release();
            return { lines: [`workspace (in place): ${record.path}`] };
        },
    };
}
