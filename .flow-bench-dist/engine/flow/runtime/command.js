import { TailBuffer } from './tail-buffer.js';
const TAIL_BYTES = 64 * 1024;
const KILL_GRACE_MS = 2000;
/**
 * Runs `/bin/sh -c <command>` in its own process group, keeping bounded tails of its output.
 * A timeout, an idle timeout or an abort kills the whole group (a shell's children too): TERM,
 * then KILL after a grace period.
 */
export async function runCommand(spec) {
    const { execa } = await import('execa');
    const started = Date.now();
    const stdout = new TailBuffer(TAIL_BYTES);
    const stderr = new TailBuffer(TAIL_BYTES);
    const output = new TailBuffer(TAIL_BYTES);
    const child = execa('/bin/sh', ['-c', spec.command], {
        cwd: spec.cwd,
        env: spec.env,
        stdin: 'ignore',
        buffer: false,
        reject: false,
        detached: true,
        cleanup: true,
    });
    let reason;
    let killTimer;
    const kill = (why) => {
        if (reason !== undefined)
            return;
        reason = why;
        signalGroup(child.pid, 'SIGTERM');
        killTimer = setTimeout(() => signalGroup(child.pid, 'SIGKILL'), KILL_GRACE_MS);
        killTimer.unref();
    };
    let idleTimer;
    const armIdle = () => {
        if (spec.idleTimeoutMs === undefined)
            return;
        if (idleTimer)
            clearTimeout(idleTimer);
        idleTimer = setTimeout(() => kill('idle'), spec.idleTimeoutMs);
    };
    const onData = (target) => (chunk) => {
        const text = chunk.toString('utf8');
        target.push(text);
        output.push(text);
        spec.onOutput?.(text);
        armIdle();
    };
    child.stdout?.on('data', onData(stdout));
    child.stderr?.on('data', onData(stderr));
    armIdle();
    const timeout = spec.timeoutMs === undefined ? undefined : setTimeout(() => kill('timeout'), spec.timeoutMs);
    const onAbort = () => kill('abort');
    if (spec.signal?.aborted)
        onAbort();
    spec.signal?.addEventListener('abort', onAbort);
    try {
        const result = await child;
        const spawnError = result.exitCode === undefined && result.signal === undefined && result.failed ? result.shortMessage : undefined;
        return {
            exitCode: result.exitCode,
            ...(result.signal === undefined ? {} : { signal: result.signal }),
            stdout: stdout.text(),
            stderr: stderr.text(),
            output: output.text(),
            timedOut: reason === 'timeout',
            idle: reason === 'idle',
            aborted: reason === 'abort',
            ...(spawnError === undefined ? {} : { spawnError }),
            durationMs: Date.now() - started,
        };
    }
    finally {
        if (timeout)
            clearTimeout(timeout);
        if (idleTimer)
            clearTimeout(idleTimer);
        if (killTimer)
            clearTimeout(killTimer);
        spec.signal?.removeEventListener('abort', onAbort);
    }
}
function signalGroup(pid, signal) {
    if (pid === undefined)
        return;
    try {
        process.kill(-pid, signal);
    }
    catch {
        // The group is already gone.
    }
}
/** The last `lines` lines of a text (for guidance and summaries). */
export function lastLines(text, lines) {
    const all = text.replace(/\s+$/, '').split('\n');
    return all.slice(-lines).join('\n');
}
