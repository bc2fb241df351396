import { UsageError } from '../../util/errors.js';
import { declareSecretNames } from '../../util/redact.js';
import type { PlanTree, SandboxSetting } from '../core/plan.js';

/** Every secret a plan's commands declare, with the step that declares it (sub-flow steps as `sub/step`). */
export function declaredSecrets(tree: PlanTree, prefix = ''): Array<{ step: string; name: string }> {
  const out: Array<{ step: string; name: string }> = [];
  for (const step of tree.plan.steps) {
    const settings: Array<SandboxSetting | undefined> = [step.sandbox, step.agent?.verify?.sandbox];
    const names = new Set(settings.flatMap((setting) => setting?.secrets ?? []));
    for (const name of names) out.push({ step: `${prefix}${step.id}`, name });
    const child = tree.children[step.id];
    if (child !== undefined) out.push(...declaredSecrets(child, `${prefix}${step.id}/`));
  }
  return out;
}

/**
 * Refuses a run (before anything runs) whose steps declare a secret neo's environment does not
 * hold: the step would fail later, deep in a tool, with a confusing authentication error. An
 * empty value counts as unset. The declared ones become secrets to the one redactor, so a
 * command that prints one leaves `[redacted NAME]` in every output, whatever the name says.
 */
export function requirePlanSecrets(tree: PlanTree, env: NodeJS.ProcessEnv = process.env): void {
  const declared = declaredSecrets(tree);
  declareSecretNames(declared.map(({ name }) => name));
  const unset = declared.filter(({ name }) => env[name] === undefined || env[name] === '');
  if (unset.length === 0) return;
  const names = [...new Set(unset.map((u) => u.name))];
  throw new UsageError(
    'FLOW_SECRET_UNSET',
    `${tree.plan.name}: ${unset.map((u) => `step ${u.step} declares secret \`${u.name}\`, which is not set`).join('; ')}`,
    {
      hint: `set ${names.join(', ')} in neo's environment before running, or drop ${names.length === 1 ? 'it' : 'them'} from \`secrets:\``,
    },
  );
}
