export { transitiveNeeds } from '../../util/step-graph.js';

/** Every step downstream of `roots` (the roots included), following `needs` backwards. */
export function downstreamOf(
  steps: ReadonlyArray<{ id: string; needs: readonly string[] }>,
  roots: readonly string[],
): Set<string> {
  const out = new Set(roots);
  let grew = true;
  while (grew) {
    grew = false;
    for (const step of steps) {
      if (out.has(step.id)) continue;
      if (step.needs.some((need) => out.has(need))) {
        out.add(step.id);
        grew = true;
      }
    }
  }
  return out;
}
