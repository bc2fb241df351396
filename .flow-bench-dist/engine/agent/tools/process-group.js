/**
 * Process groups. Every command the agent runs leads its own group (spawned detached), so a
 * kill reaches everything it started — pipelines, `&` children, test runners' workers.
 */
import { readdirSync, readFileSync } from 'node:fs';
/** Signals the whole group; false when it is already gone. */
export function signalGroup(pid, signal) {
    try {
        process.kill(-pid, signal);
        return true;
    }
    catch {
        return false;
    }
}
/**
 * Whether any process of the group is alive. On Linux the answer comes from /proc, because a
 * zombie (exited, not yet reaped — common under a container's PID 1) still answers kill(0).
 */
export function groupAlive(pid) {
    const members = livingMembers(pid);
    if (members !== undefined)
        return members.length > 0;
    try {
        process.kill(-pid, 0);
        return true;
    }
    catch (error) {
        // EPERM: it exists but is not ours to signal; still alive.
        return error.code === 'EPERM';
    }
}
/** The pids of a group's living (non-zombie) processes, from /proc; undefined without /proc. */
export function livingMembers(pgid) {
    let entries;
    try {
        entries = readdirSync('/proc');
    }
    catch {
        return undefined;
    }
    const out = [];
    for (const entry of entries) {
        if (!/^\d+$/.test(entry))
            continue;
        let stat;
        try {
            stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
        }
        catch {
            continue;
        }
        // "pid (comm) state ppid pgrp …" — comm may hold spaces and parentheses.
        const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
        if (Number(fields[2]) === pgid && fields[0] !== 'Z' && fields[0] !== 'X')
            out.push(Number(entry));
    }
    return out;
}
/**
 * SIGTERM to the group, then SIGKILL if anything is left after `graceMs`. Resolves once the group
 * is gone (or after the SIGKILL had a moment to land).
 */
export async function killGroup(pid, graceMs = 2000) {
    if (!signalGroup(pid, 'SIGTERM'))
        return;
    const deadline = Date.now() + graceMs;
    while (Date.now() < deadline) {
        await pause(25);
        if (!groupAlive(pid))
            return;
    }
    signalGroup(pid, 'SIGKILL');
    for (let i = 0; i < 40 && groupAlive(pid); i++)
        await pause(25);
}
function pause(ms) {
    return new Promise((resolve) => setTimeout(resolve, ms));
}
