/**
 * The `needs` graph of a flow's steps, pure: used by the definition checks (which steps an
 * expression may read) and by the flow compiler (what a step may read at run time).
 */

/** Transitive `needs` of every step: the steps whose results each one may read. Unknown ids and cycles are tolerated. */
export function transitiveNeeds(
  steps: ReadonlyArray<{ id: string; needs?: readonly string[] }>,
): Map<string, Set<string>> {
  const direct = new Map(steps.map((s) => [s.id, s.needs ?? []]));
  const memo = new Map<string, Set<string>>();
  const visit = (id: string, trail: Set<string>): Set<string> => {
    const cached = memo.get(id);
    if (cached) return cached;
    const out = new Set<string>();
    if (trail.has(id)) return out;
    trail.add(id);
    for (const need of direct.get(id) ?? []) {
      if (!direct.has(need)) continue;
      out.add(need);
      for (const inner of visit(need, trail)) out.add(inner);
    }
    trail.delete(id);
    memo.set(id, out);
    return out;
  };
  for (const step of steps) visit(step.id, new Set());
  return memo;
}
