import { UsageError } from '../../util/errors.js';
import type { PlanTree } from '../core/plan.js';
import type { Isolation } from '../workspace/index.js';
import { plannedSandboxes } from './require-sandbox.js';

/**
 * Refuses `--watch` where the files it reloads are the workspace a sandboxed step writes: in
 * `inplace` isolation the plan, its sub-flows and the project's personas lie in the checkout the
 * run works in, so a confined step could rewrite the plan to lower the sandbox of the steps after
 * it (or change their commands) and neo would read that back as the user's edit. Elsewhere the
 * workspace is a worktree or a copy and the definitions stay out of a sandbox's reach.
 */
export function refuseUnsafeWatch(tree: PlanTree, isolation: Isolation | undefined, watch: boolean): void {
  if (!watch || isolation !== 'inplace') return;
  const plans = (t: PlanTree): PlanTree['plan'][] => [t.plan, ...Object.values(t.children).flatMap(plans)];
  const boxed = plans(tree).some((plan) => plannedSandboxes(plan).some((a) => a.setting.kind !== 'none'));
  if (!boxed) return;
  throw new UsageError(
    'FLOW_WATCH_UNSAFE',
    `--watch would reload ${tree.plan.name}'s definitions from the checkout its sandboxed steps write (inplace isolation): a step could lower its own sandbox`,
    { hint: 'drop --watch, or run in a worktree or a copy (--isolation worktree|copy)' },
  );
}
