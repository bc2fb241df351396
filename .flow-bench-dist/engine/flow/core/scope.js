import { isTerminal } from './state.js';
/** The view of a finished step that expressions and env variables see. */
export function stepView(step) {
    return {
        status: step.status,
        verdict: step.verdict ?? null,
        outputs: step.outputs ?? {},
        error: step.error?.message ?? null,
    };
}
/**
 * The names an expression can reach: inputs, env (the flow's env block), run, steps (finished
 * steps only: a step still running reads as absent), and item/loop where they apply.
 */
export function expressionContext(state, at = {}) {
    const steps = {};
    for (const [id, step] of Object.entries(state.steps))
        if (isTerminal(step.status))
            steps[id] = stepView(step);
    const context = { inputs: state.inputs, env: state.env, run: state.run, steps };
    if (at.item !== undefined)
        context.item = at.item.value;
    if (at.loop !== undefined)
        context.loop = { iteration: at.loop.iteration, outputs: at.loop.outputs ?? {} };
    return context;
}
