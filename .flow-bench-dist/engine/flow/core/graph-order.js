/** Transitive `needs` of every step: the steps whose results each one may read. */
export function transitiveNeeds(steps) {
    const direct = new Map(steps.map((s) => [s.id, s.needs ?? []]));
    const memo = new Map();
    const visit = (id, trail) => {
        const cached = memo.get(id);
        if (cached)
            return cached;
        const out = new Set();
        if (trail.has(id))
            return out;
        trail.add(id);
        for (const need of direct.get(id) ?? []) {
            if (!direct.has(need))
                continue;
            out.add(need);
            for (const inner of visit(need, trail))
                out.add(inner);
        }
        trail.delete(id);
        memo.set(id, out);
        return out;
    };
    for (const step of steps)
        visit(step.id, new Set());
    return memo;
}
/** Every step downstream of `roots` (the roots included), following `needs` backwards. */
export function downstreamOf(steps, roots) {
    const out = new Set(roots);
    let grew = true;
    while (grew) {
        grew = false;
        for (const step of steps) {
            if (out.has(step.id))
                continue;
            if (step.needs.some((need) => out.has(need))) {
                out.add(step.id);
                grew = true;
            }
        }
    }
    return out;
}
