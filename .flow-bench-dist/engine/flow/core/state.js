const TERMINAL = new Set(['succeeded', 'failed', 'skipped', 'cancelled']);
export function isTerminal(status) {
    return TERMINAL.has(status);
}
/** A fresh unit. */
export function pendingUnit() {
    return { status: 'pending', attempt: 1, iteration: 1, executions: 0 };
}
/** The key of a unit: the step id, or `id[index]` for a foreach item. */
export function unitKey(step, item) {
    return item === undefined ? step : `${step}[${item}]`;
}
/** A new run's state, before its first event. */
export function initialRunState(runId, stepIds) {
    const steps = {};
    for (const id of stepIds)
        steps[id] = pendingUnit();
    return {
        runId,
        seq: 0,
        status: 'running',
        inputs: {},
        env: {},
        run: { id: runId, workspace: '', projectDir: '' },
        steps,
        ledger: { turns: 0, tokens: 0, costUsd: 0, wallMs: 0 },
    };
}
/** Every unit of a step, with its item index (undefined for a plain step). */
export function unitsOf(state) {
    if (state.units === undefined)
        return [{ unit: state }];
    return state.units.map((unit, item) => ({ unit, item }));
}
