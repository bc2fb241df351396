import type { Flow, Step } from '../../definitions/index.js';
import { didYouMean } from '../../util/did-you-mean.js';
import { compileAgent } from './compile-agent.js';
import { compileSandbox } from './compile-sandbox.js';
import { DEFAULT_COMMAND_TIMEOUT_MS } from './command-limits.js';
import { optionalDurationMs } from '../../util/duration.js';
import { transitiveNeeds } from './graph-order.js';
import type { CompileOptions, CompileProblem } from './compile-types.js';
import type { PlanLookup } from './lookup.js';
import type { CompiledPlan, Decision, InputSpec, PlanBudgets, PlanStep, StepKind } from './plan.js';
import { defined } from '../../util/defined.js';

const DEFAULT_DECISIONS: Decision[] = [
  { id: 'approve', label: 'Approve', fail: false },
  { id: 'reject', label: 'Reject', fail: true },
];

/**
 * Compiles a schema-valid, reference-checked flow into a {@link CompiledPlan}: every default
 * applied, every agent step's knobs narrowed through flow defaults, policies, persona and owner
 * policy, durations in milliseconds, paths absolute. Pure: the lookup supplies definitions.
 */
export function compilePlan(
  flow: Flow,
  file: string,
  lookup: PlanLookup,
  options: CompileOptions = {},
): { plan: CompiledPlan; problems: CompileProblem[] } {
  const problems: CompileProblem[] = [];
  if (options.backendOverride !== undefined && lookup.backend(options.backendOverride) === undefined) {
    const suggestion = didYouMean(options.backendOverride, lookup.backendIds());
    problems.push({
      code: 'FLOW_UNKNOWN_BACKEND',
      message: `--backend names unknown backend \`${options.backendOverride}\``,
      hint: suggestion
        ? `did you mean \`${suggestion}\`?`
        : `known backends: ${lookup.backendIds().join(', ') || '(none)'}`,
    });
  }
  const main = flow.steps;
  const fin = flow.finally ?? [];
  const reach = transitiveNeeds(main);
  const mainIds = main.map((s) => s.id);
  const steps: PlanStep[] = [
    ...main.map((step) => compileStep(flow, step, 'main', [...(reach.get(step.id) ?? [])], lookup, options, problems)),
    ...fin.map((step) =>
      compileStep(flow, step, 'finally', [...new Set([...mainIds, ...(step.needs ?? [])])], lookup, options, problems),
    ),
  ];
  const plan: CompiledPlan = {
    name: flow.name,
    ...defined({ description: flow.description }),
    file,
    projectDir: lookup.projectDir,
    inputs: compileInputs(flow),
    env: stringEnv(flow.env),
    workspace: defined({
      isolation: flow.workspace?.isolation,
      base: flow.workspace?.base,
      dependencies: flow.workspace?.dependencies,
    }),
    maxParallel: flow.defaults?.maxParallel ?? 4,
    budgets: compileBudgets(flow, lookup),
    steps,
  };
  return { plan, problems };
}

function compileStep(
  flow: Flow,
  step: Step,
  group: 'main' | 'finally',
  reach: string[],
  lookup: PlanLookup,
  options: CompileOptions,
  problems: CompileProblem[],
): PlanStep {
  const kind = stepKind(step);
  const defaults = flow.defaults ?? {};
  // A run step's command always has a timeout: one that never ends holds the run forever.
  const timeoutMs =
    optionalDurationMs(step.timeout ?? defaults.timeout) ?? (kind === 'run' ? DEFAULT_COMMAND_TIMEOUT_MS : undefined);
  const idleTimeoutMs = optionalDurationMs(step.idleTimeout ?? defaults.idleTimeout);
  const out: PlanStep = {
    id: step.id,
    ...defined({ name: step.name }),
    kind,
    group,
    needs: step.needs ?? [],
    reach,
    join: step.join ?? 'all_success',
    ...defined({ if: step.if }),
    ...(step.foreach === undefined
      ? {}
      : {
          foreach: {
            items: step.foreach.items,
            ...defined({ maxParallel: step.foreach.maxParallel }),
          },
        }),
    ...(step.loop === undefined ? {} : { loop: { ...step.loop } }),
    ...(step.retry === undefined
      ? {}
      : {
          retry: {
            attempts: step.retry.attempts,
            backoffMs: optionalDurationMs(step.retry.backoff) ?? 1000,
            on: step.retry.on ?? 'transient',
          },
        }),
    ...defined({ timeoutMs, idleTimeoutMs }),
    continueOnError: step.continueOnError === true,
    env: stringEnv(step.env),
    ...defined({ cwd: step.cwd }),
  };
  const sandbox = compileSandbox(flow, step, lookup, problems, options.parent);
  out.sandbox = sandbox.step;
  if (out.loop !== undefined && sandbox.check !== undefined) out.loop.untilSandbox = sandbox.check;
  if (kind === 'agent') {
    out.agent = compileAgent(flow, step, lookup, options, problems);
    if (out.agent.verify !== undefined && sandbox.gate !== undefined) out.agent.verify.sandbox = sandbox.gate;
  }
  if (kind === 'run') out.run = { command: step.run ?? '' };
  if (kind === 'approval') {
    const decisions =
      step.approval?.decisions?.map((d) => ({ id: d.id, label: d.label ?? d.id, fail: d.fail === true })) ??
      DEFAULT_DECISIONS;
    out.approval = { prompt: step.approval?.prompt ?? '', decisions };
  }
  if (kind === 'flow')
    out.flow = { file: lookup.resolve(step.flow ?? ''), inputs: (step.inputs ?? {}) as Record<string, unknown> };
  return out;
}

/** A step's kind; the definitions check has already refused steps with none or several. */
export function stepKind(step: Step): StepKind {
  if (step.run !== undefined) return 'run';
  if (step.approval !== undefined) return 'approval';
  if (step.flow !== undefined) return 'flow';
  return 'agent';
}

function compileInputs(flow: Flow): Record<string, InputSpec> {
  const out: Record<string, InputSpec> = {};
  for (const [name, input] of Object.entries(flow.inputs ?? {})) {
    const value = input.default as unknown;
    out[name] = {
      type: input.type ?? 'string',
      ...defined({ description: input.description, default: value }),
      required: value === undefined,
      ...defined({ enum: input.enum }),
    };
  }
  return out;
}

function compileBudgets(flow: Flow, lookup: PlanLookup): PlanBudgets {
  const sources = [flow.defaults?.budgets, lookup.owner?.knobs.budgets];
  const out: PlanBudgets = {};
  const keep = (key: keyof PlanBudgets, value: number | undefined) => {
    if (value === undefined || !Number.isFinite(value)) return;
    const current = out[key];
    out[key] = current === undefined ? value : Math.min(current, value);
  };
  for (const budgets of sources) {
    if (budgets === undefined) continue;
    keep('maxCostUsd', budgets.maxCostUsd);
    keep('maxTurns', budgets.maxTurns);
    keep('maxTokens', budgets.maxTokens);
    keep('maxDurationMs', optionalDurationMs(budgets.maxDuration));
  }
  return out;
}

function stringEnv(env: Record<string, string | number | boolean> | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(env ?? {})) out[key] = String(value);
  return out;
}
