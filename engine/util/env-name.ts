/**
 * `my-step` → `MY_STEP`: the part of an environment variable's name a step id, input or output
 * name becomes (NEO_STEP_<ID>_<OUTPUT>, NEO_INPUT_<NAME>). Not one-to-one (`a-b`, `a_b` and `A.B`
 * are all `A_B`): the flow check refuses two step ids of a flow that share one (flow-check.ts).
 */
export function envName(name: string): string {
  return name.toUpperCase().replace(/[^A-Z0-9_]/g, '_');
}
