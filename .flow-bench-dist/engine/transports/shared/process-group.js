import { readdirSync, readFileSync } from 'node:fs';
/**
 * Process-group helpers. Every CLI is spawned as the leader of its own group, so one signal to
 * `-pid` reaches the CLI and everything it started (shells, language servers, test runners).
 */
/** Pids in process group `pgid` that are still running (zombies excluded). Linux reads /proc. */
export function livingGroupMembers(pgid) {
    let entries;
    try {
        entries = readdirSync('/proc');
    }
    catch {
        return signalProbe(pgid) ? [pgid] : [];
    }
    const members = [];
    for (const entry of entries) {
        if (!/^\d+$/.test(entry))
            continue;
        const stat = readStat(entry);
        if (stat === undefined)
            continue;
        if (stat.pgrp === pgid && stat.state !== 'Z' && stat.state !== 'X')
            members.push(Number(entry));
    }
    return members;
}
/** Whether any process of the group is still alive. */
export function groupAlive(pgid) {
    return livingGroupMembers(pgid).length > 0;
}
/** Sends `signal` to the whole group; a group that is already gone is not an error. */
export function signalGroup(pgid, signal) {
    try {
        process.kill(-pgid, signal);
    }
    catch {
        // ESRCH: nothing left to signal. EPERM cannot happen for our own children.
    }
}
/**
 * SIGTERM the group, wait up to `graceMs` for it to go, then SIGKILL whatever is left and wait
 * for that too. Resolves once no living member remains (or after a bounded final wait).
 */
export async function terminateGroup(pgid, graceMs) {
    if (!groupAlive(pgid))
        return;
    signalGroup(pgid, 'SIGTERM');
    if (await waitGroupGone(pgid, graceMs))
        return;
    signalGroup(pgid, 'SIGKILL');
    await waitGroupGone(pgid, 2_000);
}
/** Polls until the group has no living member; false when `timeoutMs` passes first. */
export async function waitGroupGone(pgid, timeoutMs) {
    const deadline = Date.now() + timeoutMs;
    while (groupAlive(pgid)) {
        if (Date.now() >= deadline)
            return false;
        await new Promise((resolve) => setTimeout(resolve, 15));
    }
    return true;
}
function readStat(pid) {
    try {
        const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
        // The command name sits in parentheses and may itself contain spaces or parentheses.
        const rest = text.slice(text.lastIndexOf(')') + 2).split(' ');
        return { state: rest[0] ?? '', pgrp: Number(rest[2]) };
    }
    catch {
        return undefined;
    }
}
function signalProbe(pgid) {
    try {
        process.kill(-pgid, 0);
        return true;
    }
    catch {
        return false;
    }
}
