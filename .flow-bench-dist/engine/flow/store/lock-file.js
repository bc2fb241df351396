import { mkdir, open, readFile, rm } from 'node:fs/promises';
import { dirname } from 'node:path';
import { NeoError } from '../../util/errors.js';
import { isProcessAlive } from './runs.js';
/**
 * Takes a lock file (created exclusively). A lock whose holder process is gone is stale and
 * taken over; a live holder is a typed error naming the run that holds it.
 */
export async function acquireLockFile(path, info, describe) {
    await mkdir(dirname(path), { recursive: true });
    for (let attempt = 0; attempt < 3; attempt++) {
        try {
            const handle = await open(path, 'wx');
            await handle.writeFile(JSON.stringify(info));
            await handle.close();
            let released = false;
            return {
                path,
                async release() {
                    if (released)
                        return;
                    released = true;
                    const holder = await readHolder(path);
                    if (holder?.pid === info.pid && holder.runId === info.runId)
                        await rm(path, { force: true });
                },
            };
        }
        catch (error) {
            if (error.code !== 'EEXIST')
                throw error;
            const holder = await readHolder(path);
            // Held by a live process — this one included, for another run — is busy; a holder whose
            // process died (or this very run, from an earlier attempt) is stale and taken over.
            const ours = holder !== null && holder.pid === info.pid && holder.runId === info.runId;
            if (holder !== null && !ours && isProcessAlive(holder.pid))
                throw describe(holder);
            await rm(path, { force: true });
        }
    }
    throw new NeoError('FLOW_LOCK_BUSY', `could not take the lock ${path}`);
}
async function readHolder(path) {
    try {
        return JSON.parse(await readFile(path, 'utf8'));
    }
    catch {
        return null;
    }
}
