import { toText } from '../../expr/index.js';
import type { RunState } from './state.js';
import { stepView } from './scope.js';
import { envName } from '../../util/env-name.js';

/** Values longer than this are left out of the environment (the kernel caps one variable). */
const MAX_VALUE = 32 * 1024;

/** Where a command runs, for the NEO_* variables. */
export interface CommandSite {
  step: string;
  attempt: number;
  iteration: number;
  item?: { index: number; value: unknown };
  /** Steps whose results arrive as variables: the step's own `needs` (reach further back with `env:`). */
  needs: readonly string[];
}

/**
 * The environment neo gives a command (a run step, a gate, a loop check). Values reach the
 * command only this way, never spliced into its text: NEO_INPUT_<NAME> per input,
 * NEO_STEP_<ID>_<OUTPUT> (plus neo's _STATUS and _VERDICT, which no output overrides) per step in its `needs` (as GitHub's
 * `needs` context: direct needs only, so a long chain does not grow every command's
 * environment; an expression in `env:` reaches any step the step depends on), NEO_ITEM for a
 * foreach item, NEO_RUN_* for the run. Objects arrive as JSON.
 */
export function commandEnv(state: RunState, site: CommandSite): Record<string, string> {
  const env: Record<string, string> = {
    NEO_RUN_ID: state.runId,
    NEO_WORKSPACE: state.run.workspace,
    NEO_PROJECT_DIR: state.run.projectDir,
    NEO_STEP_ID: site.step,
    NEO_ATTEMPT: String(site.attempt),
    NEO_ITERATION: String(site.iteration),
  };
  if (state.run.branch !== undefined) env.NEO_RUN_BRANCH = state.run.branch;
  if (site.item !== undefined) {
    put(env, 'NEO_ITEM', site.item.value);
    env.NEO_ITEM_INDEX = String(site.item.index);
  }
  for (const [name, value] of Object.entries(state.inputs)) put(env, `NEO_INPUT_${envName(name)}`, value);
  const needed = site.needs.filter((id) => state.steps.has(id));
  const prefixes = needed.map((id) => `NEO_STEP_${envName(id)}_`);
  needed.forEach((id, i) => {
    const prefix = prefixes[i]!;
    for (const [key, value] of Object.entries(stepView(state.steps.get(id)!).outputs)) {
      const name = `${prefix}${envName(key)}`;
      if (!ownedElsewhere(name, prefix, prefixes)) put(env, name, value);
    }
  });
  // neo's own, after the outputs: a step names its outputs itself, and `status=succeeded` in a
  // failed step's $NEO_OUTPUT must not read as its STATUS to a later step (a finally's deploy).
  needed.forEach((id, i) => {
    const view = stepView(state.steps.get(id)!);
    const prefix = prefixes[i]!;
    env[`${prefix}STATUS`] = view.status;
    if (view.verdict !== null) env[`${prefix}VERDICT`] = view.verdict;
    else delete env[`${prefix}VERDICT`];
  });
  return env;
}

/**
 * Whether an output's variable lies among another needed step's names (step `a`'s `b_status` is
 * step `a-b`'s NEO_STEP_A_B_STATUS): left out, whichever order `needs` lists them in; the output
 * still reaches `env:` as `${{ steps.a.outputs.b_status }}`.
 */
function ownedElsewhere(name: string, own: string, prefixes: readonly string[]): boolean {
  return prefixes.some((other) => other !== own && other.length > own.length && name.startsWith(other));
}

function put(env: Record<string, string>, name: string, value: unknown): void {
  const text = toText(value);
  if (text.length <= MAX_VALUE) env[name] = text;
}
