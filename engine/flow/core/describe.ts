import { formatDuration } from '../../util/duration.js';
import { gateRunnerParts } from './gate-runner.js';
import { runnerName } from './runner-report.js';
import { DEFAULT_COMMAND_TIMEOUT_MS, DEFAULT_MAX_PROCESSES } from './command-limits.js';
import type { CompiledPlan, PlanStep, PlanTree, SandboxSetting } from './plan.js';
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
  /** What makes its gate's exit 0 a pass: a recognised runner's own summary, or the exit code only. */
  gateReport?: string;
  /** What its sandbox holds, for an agent step in one: the CLI and its commands, or (an agent in neo) its commands. */
  confines?: string;
  /** Its command's timeout (`30m`): a run step always has one; another step, when it sets one. */
  timeout?: string;
  /** Most processes its command may have at once (a run step). */
  maxProcesses?: number;
  /** Its gate's timeout and process bound. */
  gateTimeout?: string;
  gateMaxProcesses?: number;
  /** Variables of neo's environment its commands keep in their sandbox, by name. */
  secrets?: string[];
  /** A sub-flow step: the sub-flow's steps, as they will run under this step. */
  subflow?: { name: string; file: string; steps: StepDescription[] };
  /** Paths its agent must not change. */
  protect?: string[];
  limits: string[];
  control: string[];
  /** Where each agent knob came from. */
  provenance?: Record<string, string>;
}

/**
 * The effective settings of every step and of the run, for `neo flow run --dry-run`, with each
 * sub-flow's steps (`children`: compiled as they will run under the step that runs them).
 */
export function describePlan(
  plan: CompiledPlan,
  children: Record<string, PlanTree> = {},
): {
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
  return { name: plan.name, maxParallel: plan.maxParallel, budgets, steps: describeSteps(plan, children) };
}

function describeSteps(plan: CompiledPlan, children: Record<string, PlanTree>): StepDescription[] {
  return plan.steps.map((step) => {
    const described = describeStep(step);
    const child = children[step.id];
    if (child === undefined || step.flow === undefined) return described;
    return {
      ...described,
      subflow: { name: child.plan.name, file: step.flow.file, steps: describeSteps(child.plan, child.children) },
    };
  });
}

function describeStep(step: PlanStep): StepDescription {
  const limits: string[] = [];
  const command = commandLimits(step);
  if (command.timeout !== undefined) limits.push(`timeout ${command.timeout}`);
  if (command.maxProcesses !== undefined) limits.push(`≤${command.maxProcesses} processes`);
  if (step.idleTimeoutMs !== undefined) limits.push(`idle ${formatDuration(step.idleTimeoutMs)}`);
  const checks = gateLimits(step);
  if (checks.gateTimeout !== undefined) limits.push(`gate timeout ${checks.gateTimeout}`);
  if (checks.gateMaxProcesses !== undefined) limits.push(`gate ≤${checks.gateMaxProcesses} processes`);
  const secrets = [...new Set([...(step.sandbox?.secrets ?? []), ...(step.agent?.verify?.sandbox?.secrets ?? [])])];
  if (secrets.length > 0) limits.push(`secrets ${secrets.join(', ')}`);
  const control: string[] = [];
  if (step.if !== undefined) control.push(`if ${step.if}`);
  if (step.join !== 'all_success') control.push(`join ${step.join}`);
  if (step.foreach !== undefined)
    control.push(`foreach${step.foreach.maxParallel === undefined ? '' : ` ×${step.foreach.maxParallel}`}`);
  if (step.loop !== undefined) control.push(`loop ≤${step.loop.maxIterations}`);
  if (step.loop?.untilSandbox !== undefined) control.push(`loop check in ${describeSandbox(step.loop.untilSandbox)}`);
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
    ...command,
    ...checks,
    ...(secrets.length === 0 ? {} : { secrets }),
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
    ...(agent.verify === undefined ? {} : { gateReport: describeGateReport(agent.verify.run) }),
    ...(step.sandbox === undefined || step.sandbox.kind === 'none'
      ? {}
      : {
          confines: agent.inProcess
            ? 'only the commands it runs (the agent runs in neo)'
            : 'the agent CLI and every command it runs',
        }),
    ...defined({ protect: agent.protect }),
    provenance: agent.provenance,
  };
}

/** `bwrap +net (step fix)`: the kind, whether it reaches the network, and who set it. */
export function describeSandbox(setting: SandboxSetting): string {
  return `${setting.kind}${setting.kind !== 'none' && setting.network ? ' +net' : ''} (${setting.source})`;
}

/** A run step's command limits: its timeout (always, for a run step) and its process bound. */
function commandLimits(step: PlanStep): Pick<StepDescription, 'timeout' | 'maxProcesses'> {
  if (step.kind !== 'run') return step.timeoutMs === undefined ? {} : { timeout: limitDuration(step.timeoutMs) };
  return {
    timeout: limitDuration(step.timeoutMs ?? DEFAULT_COMMAND_TIMEOUT_MS),
    maxProcesses: step.sandbox?.maxProcesses ?? DEFAULT_MAX_PROCESSES,
  };
}

function gateLimits(step: PlanStep): Pick<StepDescription, 'gateTimeout' | 'gateMaxProcesses'> {
  const verify = step.agent?.verify;
  if (verify === undefined) return {};
  return {
    gateTimeout: limitDuration(verify.timeoutMs ?? DEFAULT_COMMAND_TIMEOUT_MS),
    gateMaxProcesses: verify.sandbox?.maxProcesses ?? DEFAULT_MAX_PROCESSES,
  };
}

/** A limit as one would write it: `30m`, `1h30m`, `45s`. */
function limitDuration(ms: number): string {
  if (ms % 1000 !== 0) return formatDuration(ms);
  const s = ms / 1000;
  const [h, m, sec] = [Math.floor(s / 3600), Math.floor((s % 3600) / 60), s % 60];
  return `${h > 0 ? `${h}h` : ''}${m > 0 ? `${m}m` : ''}${sec > 0 || s === 0 ? `${sec}s` : ''}`;
}

function oneLine(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > 70 ? `${flat.slice(0, 69)}…` : flat;
}

/** What judges a gate's exit 0, as `--dry-run` shows it. */
function describeGateReport(command: string): string {
  const parts = gateRunnerParts(command);
  const names = [
    ...new Set(parts.flatMap((part) => ('kind' in part && part.silent !== true ? [runnerName(part.kind)] : []))),
  ];
  const scripts = parts.flatMap((part) => ('script' in part ? [part.script] : []));
  const judged = [
    ...(names.length === 0 ? [] : [`${names.join(' and ')}'s summary`]),
    ...scripts.map(
      (script) =>
        `the summary of the runner package.json's \`${script}\` script runs (its exit code if none is recognised)`,
    ),
  ];
  return judged.length === 0 ? 'gate judged by its exit code only' : `gate judged by ${judged.join(' and ')}`;
}
