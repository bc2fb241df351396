/** Finds a step by id. */
export function planStep(plan, id) {
    return plan.steps.find((step) => step.id === id);
}
