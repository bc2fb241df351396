import { probeSandbox } from '../../execution/index.js';
import { NeoError } from '../../util/errors.js';
import type { CompiledPlan, SandboxSetting } from '../core/plan.js';
import { defined } from '../../util/defined.js';

/** Every sandbox a plan's steps and gates ask for, with who asks. */
export function plannedSandboxes(plan: CompiledPlan): Array<{ where: string; setting: SandboxSetting }> {
  const out: Array<{ where: string; setting: SandboxSetting }> = [];
  for (const step of plan.steps) {
    if (step.sandbox !== undefined) out.push({ where: `step ${step.id}`, setting: step.sandbox });
    const gate = step.agent?.verify?.sandbox;
    if (gate !== undefined) out.push({ where: `step ${step.id}'s gate`, setting: gate });
  }
  return out;
}

/**
 * Refuses to start (or resume) a run whose plan asks for a sandbox this machine cannot provide,
 * before anything runs: SANDBOX_UNAVAILABLE, naming the steps and how to install or enable it.
 */
export async function requirePlanSandboxes(plan: CompiledPlan, env: NodeJS.ProcessEnv = process.env): Promise<void> {
  const asked = plannedSandboxes(plan).filter((a) => a.setting.kind !== 'none');
  for (const kind of new Set(asked.map((a) => a.setting.kind))) {
    const found = await probeSandbox(kind, env);
    if (found.available) continue;
    const who = asked.filter((a) => a.setting.kind === kind).map((a) => a.where);
    throw new NeoError(
      'SANDBOX_UNAVAILABLE',
      `${plan.name} asks for the ${kind} sandbox (${who.slice(0, 4).join(', ')}${who.length > 4 ? ', …' : ''}) but it is unavailable here: ${found.detail}`,
      defined({ hint: found.hint }),
    );
  }
}
