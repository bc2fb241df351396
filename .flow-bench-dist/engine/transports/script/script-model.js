/** The tool names the script backend reports; the backend descriptor's editToolNames lists the first four. */
export const SCRIPT_EDIT_TOOLS = ['write', 'edit', 'delete', 'rename'];
export const SCRIPT_RUN_TOOL = 'run';
/** Every action key a script item may hold. */
export const ACTION_KEYS = ['say', 'think', 'write', 'edit', 'delete', 'rename', 'run', 'ask', 'fail', 'hang', 'end'];
/** Normalizes a schema-valid script (each action already checked to hold exactly one key). */
export function toPlan(script, hash, file) {
    return { script, hash, file, turns: script.turns.map((turn, index) => toPlayTurn(turn, index)) };
}
function toPlayTurn(turn, index) {
    if (Array.isArray(turn))
        return { index, steps: turn.map(toStep) };
    const contains = turn.when?.guidanceContains;
    const out = { index, steps: turn.actions.map(toStep) };
    if (contains !== undefined)
        out.guidanceContains = (typeof contains === 'string' ? [contains] : contains).map((s) => s.toLowerCase());
    if (turn.cost !== undefined)
        out.cost = turn.cost;
    return out;
}
/** The action key an item holds (x- keys are notes, not actions). */
export function actionKeys(action) {
    return Object.keys(action).filter((key) => !key.startsWith('x-'));
}
function toStep(action) {
    if (action.say !== undefined)
        return { kind: 'say', text: action.say };
    if (action.think !== undefined)
        return { kind: 'think', text: action.think };
    if (action.write !== undefined)
        return { kind: 'write', path: action.write.path, content: action.write.content };
    if (action.edit !== undefined)
        return { kind: 'edit', path: action.edit.path, search: action.edit.search, replace: action.edit.replace, all: action.edit.all ?? false };
    if (action.delete !== undefined)
        return { kind: 'delete', path: action.delete.path };
    if (action.rename !== undefined)
        return { kind: 'rename', from: action.rename.from, to: action.rename.to };
    if (action.run !== undefined) {
        const { command, cwd, expectExit, env } = action.run;
        const step = { kind: 'run', command: typeof command === 'string' ? command : [...command], expectExit: expectExit ?? 0 };
        if (cwd !== undefined)
            step.cwd = cwd;
        if (env !== undefined)
            step.env = env;
        return step;
    }
    if (action.ask !== undefined) {
        const { toolName, input, onAllow, onDeny } = action.ask;
        return { kind: 'ask', toolName, input, onAllow: (onAllow ?? []).map(toStep), onDeny: (onDeny ?? []).map(toStep) };
    }
    if (action.fail !== undefined)
        return { kind: 'fail', message: action.fail.message, transient: action.fail.transient ?? false, fatal: action.fail.fatal ?? false };
    if ('hang' in action)
        return { kind: 'hang' };
    if ('end' in action) {
        const step = { kind: 'end', ok: action.end?.ok ?? true };
        if (action.end?.text !== undefined)
            step.text = action.end.text;
        return step;
    }
    // Unreachable after validation: the loader rejects an item without an action key.
    throw new Error('script action without an action key');
}
