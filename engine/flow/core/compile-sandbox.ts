import type { Flow, Step } from '../../definitions/index.js';
import { DEFAULT_MAX_PROCESSES } from './command-limits.js';
import type { CompileOptions, CompileProblem } from './compile-types.js';
import type { KnobLayer, PlanLookup } from './lookup.js';
import type { SandboxSetting } from './plan.js';
import { stepVerify } from './step-verify.js';

/**
 * Where a step's commands, gate and agent CLI run. The sandbox is the step's, else the flow's,
 * else — for a sub-flow — `bwrap` when the parent step that runs it is in bwrap, else `bwrap`
 * when a policy requires it (the owner's, the flow's `defaults.policy`, an agent step's own and
 * its persona's), else `none`. A step or gate that says `none` where a policy requires `bwrap`,
 * or under a parent step in bwrap, is refused, never run unconfined. The network is off for
 * commands and gates unless asked, and always on for an agent CLI, which must reach its model.
 * A command's setting (a run step's, a gate's, an agent step's loop check) also carries the
 * secrets it keeps by name and its process bound.
 */
export function compileSandbox(
  flow: Flow,
  step: Step,
  lookup: PlanLookup,
  problems: CompileProblem[],
  parent?: CompileOptions['parent'],
): { step: SandboxSetting; gate?: SandboxSetting; check?: SandboxSetting } {
  const required = requiredBy(flow, step, lookup);
  const inherited = parent?.sandbox.kind === 'bwrap' ? parent : undefined;
  const pick = (own: Step['sandbox'], ownSource: string, network: boolean, what: string): SandboxSetting => {
    const [kind, source] =
      own !== undefined
        ? [own, ownSource]
        : flow.sandbox !== undefined
          ? [flow.sandbox, 'flow']
          : inherited !== undefined
            ? (['bwrap', `parent step ${inherited.step}, from ${inherited.sandbox.source}`] as const)
            : required !== undefined
              ? (['bwrap', required] as const)
              : (['none', 'default'] as const);
    const unsandboxed = `${what} of step \`${step.id}\` would run unsandboxed (\`sandbox: none\`, from ${source})`;
    if (kind === 'none' && required !== undefined)
      problems.push({
        code: 'FLOW_SANDBOX_REQUIRED',
        step: step.id,
        message: `${unsandboxed}, but ${required} requires \`sandbox: bwrap\``,
        hint: 'drop `sandbox: none`: a policy that requires the sandbox cannot be lowered by a flow',
      });
    else if (kind === 'none' && inherited !== undefined)
      problems.push({
        code: 'FLOW_SANDBOX_REQUIRED',
        step: step.id,
        message: `${unsandboxed}, but its parent step \`${inherited.step}\` runs in bwrap`,
        hint: 'a sub-flow runs at least as confined as the step that runs it: drop `sandbox: none` from the sub-flow',
      });
    return { kind, network, source };
  };
  const isAgent = step.run === undefined && step.approval === undefined && step.flow === undefined;
  const own = pick(
    step.sandbox,
    `step ${step.id}`,
    isAgent || step.network === true,
    isAgent ? 'the agent' : 'the command',
  );
  const commands = step.run !== undefined || isAgent ? commandLimits(flow, step) : {};
  // An agent step's loop check is a command like a gate, not its CLI: no network unless asked.
  const check =
    isAgent && step.loop?.untilRun !== undefined
      ? { check: { ...pick(step.sandbox, `step ${step.id}`, step.network === true, 'the loop check'), ...commands } }
      : {};
  const verify = isAgent ? stepVerify(step, lookup) : step.verify;
  if (verify === undefined) return { step: { ...own, ...commands }, ...check };
  const gate: { sandbox?: Step['sandbox']; network?: boolean } = typeof verify === 'string' ? {} : verify;
  return {
    step: { ...own, ...commands },
    ...check,
    gate: {
      ...pick(
        gate.sandbox ?? step.sandbox,
        gate.sandbox !== undefined ? `step ${step.id} verify` : `step ${step.id}`,
        gate.network ?? step.network === true,
        'the gate',
      ),
      ...commands,
    },
  };
}

/** The secrets a step's commands keep (the flow's, then the step's) and their process bound. */
function commandLimits(flow: Flow, step: Step): Pick<SandboxSetting, 'secrets' | 'maxProcesses'> {
  const secrets = [...new Set([...(flow.secrets ?? []), ...(step.secrets ?? [])])];
  return {
    ...(secrets.length === 0 ? {} : { secrets }),
    maxProcesses: step.maxProcesses ?? flow.defaults?.maxProcesses ?? DEFAULT_MAX_PROCESSES,
  };
}

/** The first policy layer that requires the sandbox, by name; undefined when none does. */
function requiredBy(flow: Flow, step: Step, lookup: PlanLookup): string | undefined {
  const layers: KnobLayer[] = [];
  const named = (id: string | undefined, label: string) => {
    const knobs = id === undefined ? undefined : lookup.policy(id);
    if (knobs !== undefined) layers.push({ source: `${label} ${id}`, knobs });
  };
  if (lookup.owner !== undefined) layers.push(lookup.owner);
  named(flow.defaults?.policy, 'defaults.policy');
  if (step.persona !== undefined) layers.push(...(lookup.persona(step.persona)?.layers ?? []));
  named(step.policy, `step ${step.id} policy`);
  return layers.find((layer) => layer.knobs.sandbox === 'bwrap')?.source;
}
