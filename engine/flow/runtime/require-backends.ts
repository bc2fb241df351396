import type { DefinitionSet } from '../../definitions/index.js';
import { backendBlocker, type TransportContext } from '../../transports/index.js';
import { UsageError } from '../../util/errors.js';
import type { PlanTree } from '../core/plan.js';

/** One agent step that cannot start here, and why. */
export interface BackendProblem {
  step: string;
  backend: string;
  message: string;
  hint?: string;
  /** The step is on the script backend and names no script (what `--dry-run` adds to its backend warnings). */
  noScript?: true;
}

const NO_SCRIPT_HINT =
  "give the step `script: <file>` (a YAML script the backend plays, relative to the plan's folder), or run the flow on another backend (`--backend <id>`)";

/**
 * Every agent step of a plan (sub-flows' as `sub/step`) whose session could not start on this
 * machine: its backend's CLI not found, neo's own agent with no provider or key, the script
 * backend with no `script:`. Each backend is asked once; nothing is run.
 */
export async function backendProblems(
  tree: PlanTree,
  set: DefinitionSet,
  context: TransportContext & { env: NodeJS.ProcessEnv },
): Promise<BackendProblem[]> {
  const steps: Array<{ step: string; backend: string; script: boolean }> = [];
  const visit = (t: PlanTree, prefix: string): void => {
    for (const step of t.plan.steps) {
      const backend = step.agent?.backend;
      if (backend !== undefined)
        steps.push({ step: `${prefix}${step.id}`, backend, script: step.agent?.script !== undefined });
      const child = t.children[step.id];
      if (child !== undefined) visit(child, `${prefix}${step.id}/`);
    }
  };
  visit(tree, '');
  const blockers = new Map(
    await Promise.all(
      [...new Set(steps.map((s) => s.backend))].map(async (id) => {
        const definition = set.get('backend', id);
        return [id, definition === undefined ? undefined : await backendBlocker(definition, context)] as const;
      }),
    ),
  );
  return steps.flatMap(({ step, backend, script }): BackendProblem[] => {
    const blocker = blockers.get(backend);
    if (blocker !== undefined) return [{ step, backend, ...blocker }];
    if (!script && set.get('backend', backend)?.data.protocol === 'script')
      return [{ step, backend, message: 'names no `script:` to play', hint: NO_SCRIPT_HINT, noScript: true }];
    return [];
  });
}

/** One problem as a sentence naming the step. */
export function problemText(problem: BackendProblem): string {
  return problem.noScript
    ? `step \`${problem.step}\` runs on the script backend and ${problem.message}`
    : `step \`${problem.step}\` runs on backend \`${problem.backend}\`, which cannot start here: ${problem.message}`;
}

/**
 * Refuses a run, before its workspace is made or any step runs, whose agent steps could not
 * start here: found when the agent step starts, the same problem would come after a worktree
 * and the earlier steps' work.
 */
export async function requirePlanBackends(
  tree: PlanTree,
  set: DefinitionSet,
  context: TransportContext & { env: NodeJS.ProcessEnv },
): Promise<void> {
  const problems = await backendProblems(tree, set, context);
  if (problems.length === 0) return;
  const hints = [...new Set(problems.flatMap((p) => (p.hint === undefined ? [] : [p.hint])))];
  if (problems.some((p) => p.noScript !== true))
    hints.push('or run it on a backend that works here: `--backend <id>` (`neo backends list` says which)');
  throw new UsageError(
    'FLOW_BACKEND_UNAVAILABLE',
    `${tree.plan.name}: ${problems.map(problemText).join('; ')}`,
    hints.length === 0 ? {} : { hint: hints.join('; ') },
  );
}
