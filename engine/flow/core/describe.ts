import { formatDuration } from '../../util/duration.js';
import type { CompiledPlan, PlanStep, SandboxSetting } from './plan.js';
import { defined } from '../../util/defined.js';

/** One step as `--dry-run` shows it: what it would run with, nothing run. */
export interface StepDescription {
  id: string;
  kind: PlanStep['kind'];
  group: PlanStep['group'];
  needs: string[];
  /** What it does, in a few words (command, brief, prompt, sub-flow file). */
  does: string;
  backend?: string;
  model?: string;
  effort?: string;
  posture?: string;
  ceiling?: string;
  maxRounds?: number;
  persona?: string;
  gate?: string;
  /** Where its command or agent CLI runs: `bwrap +net (flow)`, `none (default)`. */
  sandbox?: string;
  /** Where its gate runs. */
  gateSandbox?: string;
  /** Paths its agent must not change. */
  protect?: string[];
  limits: string[];
  control: string[];
  /** Where each agent knob came from. */
  provenance?: Record<string, string>;
}

/** The effective settings of every step and of the run, for `neo flow run --dry-run`. */
export function describePlan(plan: CompiledPlan): {
  name: string;
  maxParallel: number;
  budgets: string[];
  steps: StepDescription[];
} {
  const budgets: string[] = [];
  if (plan.budgets.maxCostUsd !== undefined) budgets.push(`$${plan.budgets.maxCostUsd}`);
  if (plan.budgets.maxTurns !== undefined) budgets.push(`${plan.budgets.maxTurns} turns`);
  if (plan.budgets.maxTokens !== undefined) budgets.push(`${plan.budgets.maxTokens} tokens`);
  if (plan.budgets.maxDurationMs !== undefined) budgets.push(formatDuration(plan.budgets.maxDurationMs));
  return { name: plan.name, maxParallel: plan.maxParallel, budgets, steps: plan.steps.map(describeStep) };
}

function describeStep(step: PlanStep): StepDescription {
  const limits: string[] = [];
  if (step.timeoutMs !== undefined) limits.push(`timeout ${formatDuration(step.timeoutMs)}`);
  if (step.idleTimeoutMs !== undefined) limits.push(`idle ${formatDuration(step.idleTimeoutMs)}`);
  const control: string[] = [];
  if (step.if !== undefined) control.push(`if ${step.if}`);
  if (step.join !== 'all_success') control.push(`join ${step.join}`);
  if (step.foreach !== undefined)
    control.push(`foreach${step.foreach.maxParallel === undefined ? '' : ` ×${step.foreach.maxParallel}`}`);
  if (step.loop !== undefined) control.push(`loop ≤${step.loop.maxIterations}`);
  if (step.retry !== undefined) control.push(`retry ${step.retry.attempts}× ${step.retry.on}`);
  if (step.continueOnError) control.push('continueOnError');
  const base: StepDescription = {
    id: step.id,
    kind: step.kind,
    group: step.group,
    needs: step.needs,
    does: '',
    limits,
    control,
    ...(step.sandbox === undefined ? {} : { sandbox: describeSandbox(step.sandbox) }),
  };
  if (step.run !== undefined) base.does = step.run.command;
  if (step.approval !== undefined)
    base.does = `${step.approval.prompt} [${step.approval.decisions.map((d) => d.id).join('/')}]`;
  if (step.flow !== undefined) base.does = `sub-flow ${step.flow.file}`;
  const agent = step.agent;
  if (agent === undefined) return base;
  const gate =
    agent.verify === undefined
      ? undefined
      : `${agent.verify.run} (×${agent.verify.attempts}${agent.verify.flakeCheck ? ', flake check' : ''}${agent.verify.baseline ? ', baseline' : ''})`;
  return {
    ...base,
    does: oneLine(agent.brief),
    ...defined({ backend: agent.backend, model: agent.model, effort: agent.effort }),
    posture: agent.initialPosture,
    ceiling: agent.maxPosture,
    ...defined({ maxRounds: agent.maxRounds, persona: agent.persona, gate }),
    ...(agent.verify?.sandbox === undefined ? {} : { gateSandbox: describeSandbox(agent.verify.sandbox) }),
    ...defined({ protect: agent.protect }),
    provenance: agent.provenance,
  };
}

/** `bwrap +net (step fix)`: the kind, whether it reaches the network, and who set it. */
export function describeSandbox(setting: SandboxSetting): string {
  return `${setting.kind}${setting.kind !== 'none' && setting.network ? ' +net' : ''} (${setting.source})`;
}

function oneLine(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > 70 ? `${flat.slice(0, 69)}…` : flat;
}
