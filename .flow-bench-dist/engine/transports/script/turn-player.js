import { gateFor } from './gate.js';
import { describeResult, startCommand } from './run-command.js';
import { ToolFailure } from './workspace.js';
/** Why a turn stopped early: the driver interrupted it, or the session is being stopped. */
export class TurnAbort extends Error {
    why;
    constructor(why) {
        super(why === 'interrupt' ? 'interrupted' : 'stopped');
        this.why = why;
    }
}
/**
 * Plays one turn's steps in order against the working tree. A tool call's id is
 * `t<turn>.<n>`, n counting the actions played in the turn (inside an ask's continuation too),
 * so a script made from a recording reports the same ids when replayed.
 */
export async function playTurn(steps, ordinal, controls) {
    const state = { ordinal, played: 0 };
    const outcome = await playSteps(steps, controls, state);
    if (outcome !== undefined)
        return outcome;
    return state.lastText === undefined ? { kind: 'complete' } : { kind: 'complete', text: state.lastText };
}
async function playSteps(steps, controls, state) {
    for (const step of steps) {
        throwIfAborted(controls.signal);
        const id = `t${state.ordinal}.${state.played++}`;
        switch (step.kind) {
            case 'say':
                state.lastText = step.text;
                controls.emit({ type: 'text', text: step.text });
                break;
            case 'think':
                controls.emit({ type: 'reasoning', text: step.text });
                break;
            case 'write':
                await toolCall(id, 'write', { path: step.path, content: step.content }, 'edit', controls, async () => ok(await controls.workspace.write(step.path, step.content)));
                break;
            case 'edit': {
                const input = step.all ? { path: step.path, search: step.search, replace: step.replace, all: true } : { path: step.path, search: step.search, replace: step.replace };
                await toolCall(id, 'edit', input, 'edit', controls, async () => ok(await controls.workspace.edit(step.path, step.search, step.replace, step.all)));
                break;
            }
            case 'delete':
                await toolCall(id, 'delete', { path: step.path }, 'edit', controls, async () => ok(await controls.workspace.delete(step.path)));
                break;
            case 'rename':
                await toolCall(id, 'rename', { from: step.from, to: step.to }, 'edit', controls, async () => ok(await controls.workspace.rename(step.from, step.to)));
                break;
            case 'run': {
                const input = step.cwd === undefined ? { command: step.command } : { command: step.command, cwd: step.cwd };
                await toolCall(id, 'run', input, 'command', controls, () => runStep(step, controls));
                break;
            }
            case 'ask': {
                const outcome = await askStep(id, step, controls, state);
                if (outcome !== undefined)
                    return outcome;
                break;
            }
            case 'fail':
                return { kind: 'failed', message: step.message, transient: step.transient, fatal: step.fatal };
            case 'hang':
                await untilAborted(controls.signal);
                break;
            case 'end':
                return { kind: 'ended', ok: step.ok, text: step.text ?? state.lastText ?? '' };
        }
    }
    return undefined;
}
const ok = (output) => ({ output, isError: false });
/** tool_use, then the posture's verdict (allow / clarify / deny), then tool_result. */
async function toolCall(id, name, input, action, controls, perform) {
    controls.emit({ type: 'tool_use', id, name, input });
    try {
        const gate = gateFor(controls.posture(), action);
        if (gate.kind === 'deny')
            return result(controls, id, { output: gate.reason, isError: true });
        if (gate.kind === 'ask') {
            const decision = await controls.ask(`clr-${id}`, name, input);
            if (!decision.allow)
                return result(controls, id, { output: deniedText(decision), isError: true });
        }
        result(controls, id, await perform());
    }
    catch (error) {
        if (error instanceof TurnAbort) {
            result(controls, id, { output: error.message, isError: true });
            throw error;
        }
        result(controls, id, { output: error instanceof ToolFailure ? error.message : `${name} failed: ${error.message ?? String(error)}`, isError: true });
    }
}
/** A question about a tool the script does not perform itself; each answer has its own continuation. */
async function askStep(id, step, controls, state) {
    controls.emit({ type: 'tool_use', id, name: step.toolName, input: step.input });
    let decision;
    try {
        const gate = gateFor(controls.posture(), 'ask');
        if (gate.kind === 'ask') {
            const answer = await controls.ask(`clr-${id}`, step.toolName, step.input);
            decision = answer.allow ? answer : { allow: false, reason: deniedText(answer) };
        }
        else {
            decision = gate.kind === 'allow' ? { allow: true } : { allow: false, reason: gate.reason };
        }
    }
    catch (error) {
        if (error instanceof TurnAbort)
            result(controls, id, { output: error.message, isError: true });
        throw error;
    }
    result(controls, id, decision.allow ? { output: 'allowed', isError: false } : { output: decision.reason ?? deniedText(decision), isError: true });
    // The continuations are ordinary actions: the posture gates each of them as usual.
    return playSteps(decision.allow ? step.onAllow : step.onDeny, controls, state);
}
async function runStep(step, controls) {
    const cwd = await controls.workspace.resolveDir(step.cwd);
    const env = step.env === undefined ? controls.env : { ...controls.env, ...step.env };
    const command = startCommand(step.command, { cwd, env });
    let done;
    try {
        done = await abortable(command.done, controls.signal);
    }
    catch (error) {
        await command.kill();
        throw error;
    }
    const isError = done.spawnError !== undefined || done.exitCode !== step.expectExit;
    return { output: describeResult(done), isError };
}
function result(controls, id, output) {
    controls.emit({ type: 'tool_result', id, output: output.output, isError: output.isError });
}
function deniedText(decision) {
    return decision.reason === undefined || decision.reason === '' ? 'denied by the user' : `denied by the user: ${decision.reason}`;
}
function throwIfAborted(signal) {
    if (signal.aborted)
        throw signal.reason;
}
/** Never resolves; rejects with the abort reason once `signal` aborts. */
export function untilAborted(signal) {
    return new Promise((_, reject) => {
        if (signal.aborted)
            return reject(signal.reason);
        signal.addEventListener('abort', () => reject(signal.reason), { once: true });
    });
}
/** `promise`, unless `signal` aborts first. */
export async function abortable(promise, signal) {
    throwIfAborted(signal);
    let off = () => undefined;
    const aborted = new Promise((_, reject) => {
        const onAbort = () => reject(signal.reason);
        signal.addEventListener('abort', onAbort, { once: true });
        off = () => signal.removeEventListener('abort', onAbort);
    });
    try {
        return await Promise.race([promise, aborted]);
    }
    finally {
        off();
    }
}
