import { distrustProject } from '../../util/own-programs.js';
import { basename, dirname, relative, resolve } from 'node:path';
import {
  formatDiagnostics,
  loadDefinitions,
  namedPolicyKnobs,
  narrowKnobs,
  pathKind,
  personaDenyRules,
  personaKnobLayers,
  personaView,
  policyKnobs,
  type Definition,
  type DefinitionLoader,
  type DefinitionSet,
  type Diagnostic,
} from '../../definitions/index.js';
import { UsageError } from '../../util/errors.js';
import { toList } from '../../util/string-list.js';
import { compilePlan } from '../core/compile.js';
import type { CompileOptions, CompileProblem } from '../core/compile-types.js';
import type { PlanLookup } from '../core/lookup.js';
import type { CompiledPlan, PlanTree } from '../core/plan.js';
import type { PinnedDefinition } from '../store/run-files.js';
import { defined } from '../../util/defined.js';
import { defaultProjectDir } from '../workspace/index.js';

/** A plan file loaded, checked and compiled against the definitions around it. */
export interface LoadedPlan {
  file: string;
  set: DefinitionSet;
  loader: DefinitionLoader;
  /** Every problem in the plan, its sub-flows and the neo.yaml layers (other definitions' problems are not the run's). */
  diagnostics: Diagnostic[];
  /** Every diagnostic of every layer (what a watcher compares new errors against). */
  allDiagnostics: Diagnostic[];
  /** Sub-flow files, transitively. */
  subflows: string[];
}

/**
 * Loads every definition layer plus the plan file (and its sub-flow files, transitively) in
 * the `path` layer. The plan must be a flow file by name: plan.yaml, *.flow.yaml or flows/*.
 */
export async function loadPlanDefinitions(options: {
  planFile: string;
  cwd: string;
  home: string;
}): Promise<LoadedPlan> {
  const file = resolve(options.cwd, options.planFile);
  assertFlowFile(file);
  // Before any git call or sandbox probe: the plan's project is the run's (util/own-programs.ts).
  distrustProject(dirname(file));
  let paths = [file];
  for (;;) {
    const { set, diagnostics, loader } = await loadDefinitions({
      cwd: dirname(file),
      home: options.home,
      paths,
      flows: paths,
    });
    const found = new Set(paths);
    for (const path of [...paths]) {
      const flow = flowAt(set, path);
      for (const step of [...(flow?.data.steps ?? []), ...(flow?.data.finally ?? [])]) {
        if (step.flow === undefined) continue;
        const sub = resolve(dirname(path), step.flow);
        if (!found.has(sub)) {
          assertFlowFile(sub, `step \`${step.id}\` of ${path}`);
          found.add(sub);
        }
      }
    }
    if (found.size === paths.length) {
      const files = new Set(paths);
      return {
        file,
        set,
        loader,
        diagnostics: diagnostics.filter(
          (d) => d.span !== undefined && (files.has(d.span.file) || isSettingsProblem(d)),
        ),
        allDiagnostics: diagnostics,
        subflows: paths.slice(1),
      };
    }
    paths = [...found];
  }
}

/** The flow definition loaded from `file` (shadowed or not). */
export function flowAt(set: DefinitionSet, file: string): Definition<'flow'> | undefined {
  return (
    set.list('flow').find((d) => d.file === file) ??
    (set.shadowed.find((d) => d.kind === 'flow' && d.file === file) as Definition<'flow'> | undefined)
  );
}

/**
 * Compiles one flow file of a loaded set, and each sub-flow its steps run as it will run there
 * (under the sandbox of the step that runs it), so a sub-flow that would lower its parent's
 * sandbox is refused with the plan, before anything runs, and `--dry-run` can show its steps. A
 * sub-flow already on the way down (a flow that runs itself) is compiled when it starts. Problems
 * are returned, not thrown.
 */
export function compileFlowFile(
  set: DefinitionSet,
  file: string,
  options: { home: string; backendOverride?: string; requireBackend?: boolean; parent?: CompileOptions['parent'] },
  path: readonly string[] = [file],
): { plan: CompiledPlan; problems: CompileProblem[]; pinned: PinnedDefinition[]; children: Record<string, PlanTree> } {
  const flow = flowAt(set, file);
  if (flow === undefined)
    throw new UsageError('FLOW_PLAN_INVALID', `${file} did not load as a flow`, {
      hint: `run \`neo flow validate ${file}\``,
    });
  const lookup = lookupFor(set, file, flow, options.home);
  const { plan, problems } = compilePlan(
    flow.data,
    file,
    lookup,
    defined({
      backendOverride: options.backendOverride,
      requireBackend: options.requireBackend,
      parent: options.parent,
    }),
  );
  const children: Record<string, PlanTree> = {};
  // The run pins its sub-flows' definitions too: a resume must see when one changed (a sub-flow
  // that has not started is compiled from the current files when its step runs).
  const pinned = pinnedDefinitions(set, flow, plan);
  for (const step of plan.steps) {
    const sub = step.flow?.file;
    if (sub === undefined || path.includes(sub)) continue;
    const child = compileFlowFile(
      set,
      sub,
      {
        home: options.home,
        ...defined({ backendOverride: options.backendOverride, requireBackend: options.requireBackend }),
        parent: { step: step.id, sandbox: step.sandbox ?? { kind: 'none', network: false, source: 'default' } },
      },
      [...path, sub],
    );
    children[step.id] = { plan: child.plan, children: child.children };
    for (const pin of child.pinned)
      if (!pinned.some((p) => p.kind === pin.kind && p.id === pin.id && p.file === pin.file)) pinned.push(pin);
    for (const problem of child.problems)
      problems.push({
        code: problem.code,
        message: `sub-flow step \`${step.id}\` (${relative(dirname(file), sub)}): ${problem.message}`,
        ...defined({ hint: problem.hint }),
      });
  }
  return { plan, problems, pinned, children };
}

export { planHash } from '../store/plan-pin.js';

/**
 * A problem of a neo.yaml layer the run takes its settings from (defaults, neo's agent's
 * provider): an invalid one is left out of the set, so without this a run would go on without
 * its settings and say nothing (an agent step failed with "no model provider is configured").
 */
function isSettingsProblem(d: Diagnostic): boolean {
  return d.span !== undefined && basename(d.span.file) === 'neo.yaml';
}

/** Throws the plan's diagnostics as one usage error, formatted like `neo validate`. */
export function assertClean(loaded: LoadedPlan, cwd: string): void {
  throwProblems(loaded.file, loaded.diagnostics, cwd);
}

/** The same for the settings of a plan whose compiled form is cached (the cache skips assertClean). */
export function assertSettingsClean(file: string, diagnostics: readonly Diagnostic[], cwd: string): void {
  throwProblems(file, diagnostics.filter(isSettingsProblem), cwd);
}

function throwProblems(file: string, diagnostics: readonly Diagnostic[], cwd: string): void {
  const errors = diagnostics.filter((d) => d.severity === 'error');
  if (errors.length === 0) return;
  throw new UsageError(
    'FLOW_PLAN_INVALID',
    `${file} has ${errors.length} problem${errors.length === 1 ? '' : 's'}:\n${formatDiagnostics(errors, { color: false, cwd })}`,
    {
      hint: 'fix them and run again; `neo flow validate` checks without running',
    },
  );
}

/** Throws compile problems as one usage error. */
export function assertCompiled(problems: readonly CompileProblem[], file: string): void {
  if (problems.length === 0) return;
  const lines = problems.map(
    (p) =>
      `  ${p.step === undefined ? '' : `step ${p.step}: `}${p.message} [${p.code}]${p.hint ? `\n    hint: ${p.hint}` : ''}`,
  );
  throw new UsageError(problems[0]!.code, `${file} cannot run:\n${lines.join('\n')}`);
}

function lookupFor(set: DefinitionSet, file: string, flow: Definition<'flow'>, home: string): PlanLookup {
  const planDir = dirname(file);
  return {
    persona(id) {
      const definition = set.get('persona', id);
      if (definition === undefined) return undefined;
      const view = personaView(definition);
      const denyRules = personaDenyRules(set, definition);
      return {
        id,
        driver: view.driver,
        instructions: view.instructions,
        ...defined({ model: view.model }),
        taskTags: view.taskTags,
        layers: personaKnobLayers(set, definition, {
          policy: (persona, policy) => `persona ${persona.id} policy ${policy.id}`,
          persona: (persona) => `persona ${persona.id}`,
        }),
        ...(denyRules.length === 0 ? {} : { denyRules }),
        ...(definition.data.protect === undefined ? {} : { protect: toList(definition.data.protect) ?? [] }),
        ...(view.driver && definition.data.rules?.verify !== undefined ? { verify: definition.data.rules.verify } : {}),
      };
    },
    policy(id) {
      const definition = set.get('policy', id);
      return definition === undefined ? undefined : namedPolicyKnobs(definition, flow);
    },
    backend(id) {
      const definition = set.get('backend', id);
      if (definition === undefined) return undefined;
      return {
        id,
        // The descriptor launches no CLI: the agent runs in neo's own process.
        ...(definition.data.command === undefined ? { inProcess: true } : {}),
        editToolNames: definition.data.editToolNames ?? [],
        honorsAllowedTools: definition.data.honorsAllowedTools !== false,
        protocol: definition.data.protocol,
      };
    },
    backendIds: () => set.ids('backend'),
    ...(set.ownerPolicy === undefined
      ? {}
      : { owner: { source: `owner policy (${set.ownerPolicy.file})`, knobs: policyKnobs(set.ownerPolicy) } }),
    narrow: (layers) => narrowKnobs(layers),
    resolve: (relative) => resolve(planDir, relative),
    projectDir:
      flow.data.workspace?.path === undefined
        ? defaultProjectDir(planDir, home)
        : resolve(planDir, flow.data.workspace.path),
  };
}

/** The neo.yaml layers a run pins (a resume refuses a changed or added one). */
export const PINNED_CONFIG_LAYERS: ReadonlySet<string> = new Set(['project', 'path']);

function pinnedDefinitions(set: DefinitionSet, flow: Definition<'flow'>, plan: CompiledPlan): PinnedDefinition[] {
  const out = new Map<string, PinnedDefinition>();
  const pin = (definition: { kind: string; id: string; file: string; digest: string } | undefined) => {
    if (definition !== undefined)
      out.set(`${definition.kind}:${definition.id}`, {
        kind: definition.kind,
        id: definition.id,
        file: definition.file,
        digest: definition.digest,
      });
  };
  pin(flow);
  for (const step of plan.steps) {
    if (step.agent?.persona !== undefined) {
      const persona = set.get('persona', step.agent.persona);
      pin(persona);
      const policy = persona === undefined ? undefined : personaView(persona).policy;
      if (policy !== undefined) pin(set.get('policy', policy));
    }
    if (step.agent?.backend !== undefined) pin(set.get('backend', step.agent.backend));
  }
  const policies = [
    flow.data.defaults?.policy,
    ...[...flow.data.steps, ...(flow.data.finally ?? [])].map((s) => s.policy),
  ];
  for (const id of policies) if (id !== undefined) pin(set.get('policy', id));
  pin(set.ownerPolicy);
  // The project's neo.yaml (and one named on the command line) lie where a run's steps may write
  // (the checkout, in `inplace` isolation); the packaged and the user's (NEO_HOME) do not.
  for (const config of set.configs)
    if (PINNED_CONFIG_LAYERS.has(config.layer))
      out.set(`config:${config.file}`, { kind: 'config', id: config.layer, file: config.file, digest: config.digest });
  return [...out.values()].sort((a, b) => (`${a.kind}:${a.id}` < `${b.kind}:${b.id}` ? -1 : 1));
}

/**
 * Refuses a missing file or what is not a file (a FIFO is never opened). Its name does not matter:
 * a file named as a flow is loaded as one.
 */
export function assertFlowFile(file: string, referredBy?: string): void {
  const kind = pathKind(file);
  const by = referredBy === undefined ? '' : ` (named by ${referredBy})`;
  if (kind === 'missing') throw new UsageError('FLOW_PLAN_NOT_FOUND', `no such plan file: ${file}${by}`);
  if (typeof kind === 'object') {
    const { code, message, hint } = kind.diagnostic;
    throw new UsageError(code, `${file}${by}: ${message}`, hint === undefined ? {} : { hint });
  }
}
