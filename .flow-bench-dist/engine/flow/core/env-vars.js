import { toText } from '../../expr/index.js';
import { stepView } from './scope.js';
/** Values longer than this are left out of the environment (the kernel caps one variable). */
const MAX_VALUE = 32 * 1024;
/** `my-step` → `MY_STEP`: the part of an env name a step id or output name becomes. */
export function envName(name) {
    return name.toUpperCase().replace(/[^A-Z0-9_]/g, '_');
}
/**
 * The environment neo gives a command (a run step, a gate, a loop check). Values reach the
 * command only this way, never spliced into its text: NEO_INPUT_<NAME> per input,
 * NEO_STEP_<ID>_<OUTPUT> (plus _STATUS and _VERDICT) per step in its `needs` (as GitHub's
 * `needs` context: direct needs only, so a long chain does not grow every command's
 * environment; an expression in `env:` reaches any step the step depends on), NEO_ITEM for a
 * foreach item, NEO_RUN_* for the run. Objects arrive as JSON.
 */
export function commandEnv(state, site) {
    const env = {
        NEO_RUN_ID: state.runId,
        NEO_WORKSPACE: state.run.workspace,
        NEO_PROJECT_DIR: state.run.projectDir,
        NEO_STEP_ID: site.step,
        NEO_ATTEMPT: String(site.attempt),
        NEO_ITERATION: String(site.iteration),
    };
    if (state.run.branch !== undefined)
        env.NEO_RUN_BRANCH = state.run.branch;
    if (site.item !== undefined) {
        put(env, 'NEO_ITEM', site.item.value);
        env.NEO_ITEM_INDEX = String(site.item.index);
    }
    for (const [name, value] of Object.entries(state.inputs))
        put(env, `NEO_INPUT_${envName(name)}`, value);
    for (const id of site.needs) {
        const step = state.steps[id];
        if (step === undefined)
            continue;
        const view = stepView(step);
        const prefix = `NEO_STEP_${envName(id)}_`;
        env[`${prefix}STATUS`] = view.status;
        if (view.verdict !== null)
            env[`${prefix}VERDICT`] = view.verdict;
        for (const [key, value] of Object.entries(view.outputs))
            put(env, `${prefix}${envName(key)}`, value);
    }
    return env;
}
function put(env, name, value) {
    const text = toText(value);
    if (text.length <= MAX_VALUE)
        env[name] = text;
}
