import { watch } from 'node:fs';
import { mkdir, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { writeJsonAtomic } from '../../util/atomic-file.js';
/** Where `neo flow approve` leaves an answer for a waiting run. */
export function approvalFile(home, runId, key) {
    return join(home, 'approvals', runId, `${key}.json`);
}
/** Writes an answer for a run's approval (from another terminal). */
export async function writeApproval(home, runId, key, answer) {
    await writeJsonAtomic(approvalFile(home, runId, key), answer);
}
/** Reads and removes a waiting answer, if there is one. */
export async function takeApproval(home, runId, key) {
    const path = approvalFile(home, runId, key);
    let answer;
    try {
        answer = JSON.parse(await readFile(path, 'utf8'));
    }
    catch {
        return undefined;
    }
    await rm(path, { force: true });
    return typeof answer.decision === 'string' ? answer : undefined;
}
/**
 * Waits for an answer: one already left by `neo flow approve` (even while no process ran the
 * run), one arriving in NEO_HOME/approvals/<runId>/ (fs.watch, with a slow poll as a safety
 * net), or the terminal prompt — whichever comes first. Resolves undefined when `signal`
 * aborts (a timeout or an interrupt): an unanswered approval never approves itself.
 */
export async function waitForApproval(options) {
    const { home, ask, key, signal } = options;
    const dir = join(home, 'approvals', ask.runId);
    await mkdir(dir, { recursive: true });
    const early = await takeApproval(home, ask.runId, key);
    if (early !== undefined)
        return early;
    if (signal.aborted)
        return undefined;
    const done = new AbortController();
    const stop = AbortSignal.any([signal, done.signal]);
    return new Promise((resolve) => {
        let settled = false;
        let watcher;
        let checking = false;
        const finish = (answer) => {
            if (settled)
                return;
            settled = true;
            clearInterval(poll);
            watcher?.close();
            done.abort();
            resolve(answer);
        };
        const check = async () => {
            if (checking || settled)
                return;
            checking = true;
            try {
                const answer = await takeApproval(home, ask.runId, key);
                if (answer !== undefined)
                    finish(answer);
            }
            finally {
                checking = false;
            }
        };
        try {
            watcher = watch(dir, () => void check());
            watcher.on('error', () => undefined);
        }
        catch {
            watcher = undefined;
        }
        const poll = setInterval(() => void check(), 500);
        poll.unref();
        signal.addEventListener('abort', () => finish(undefined), { once: true });
        void check();
        if (options.prompter !== undefined) {
            options.prompter(ask, stop).then((picked) => {
                if (picked !== undefined)
                    finish({ ...picked, by: 'tty', at: new Date().toISOString() });
            }, () => undefined);
        }
    });
}
