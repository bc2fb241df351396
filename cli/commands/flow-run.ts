import { dirname } from 'node:path';
import { findRepoRoot, untrustedNotice, type DefinitionSet } from '../../engine/definitions/index.js';
import { probeBackend, type Availability } from '../../engine/transports/index.js';
import { collapseProtect } from '../../engine/posture/index.js';
import {
  backendProblems,
  describePlan,
  planDependencies,
  problemText,
  readyPlan,
  requirePlanSandboxes,
  requirePlanSecrets,
  resolveInputs,
  startRun,
  type Isolation,
  type PlanTree,
  type StepDescription,
} from '../../engine/flow/index.js';
import { probeProcessBound } from '../../engine/execution/index.js';
import { UsageError } from '../../engine/util/errors.js';
import { neoHome } from '../../engine/util/neo-home.js';
import type { ProcessMetrics } from '../../engine/observability/index.js';
import { EXIT } from '../exit-codes.js';
import { provisionLines } from '../session/provision-lines.js';
import { metricsPort, openMetrics } from '../metrics-port.js';
import { painter, table, useColor, writeJson, writeLine, type CommandIO } from '../io.js';
import { readInputs } from '../flow/inputs.js';
import { flowOutput } from '../flow/output.js';
import { terminalPrompter } from '../flow/prompt.js';
import { interruptOnSignals } from '../flow/signals.js';
import { attachRun } from '../serve/attach.js';
import { exitCodeOf, jsonErrors, printSummary } from '../flow/summary.js';
import { defined } from '../../engine/util/defined.js';

interface RunFlags {
  input?: string[];
  inputs?: string;
  json?: boolean;
  dryRun?: boolean;
  watch?: boolean;
  backend?: string;
  yes?: boolean;
  isolation?: Isolation;
  metricsPort?: string;
  engine?: 'local' | 'dbos';
  databaseUrl?: string;
  detach?: boolean;
  runId?: string;
  remote?: string;
}

export function run(io: CommandIO, planFile: string, options: RunFlags): Promise<number> {
  return jsonErrors(io, options.json === true, () => runPlan(io, planFile, options));
}

async function runPlan(io: CommandIO, planFile: string, options: RunFlags): Promise<number> {
  const home = neoHome(io.env);
  const port = metricsPort(options.metricsPort);
  const { inputs, textInputs } = await readInputs(io.cwd, options.input ?? [], options.inputs);
  if (options.dryRun) return dryRun(io, home, planFile, inputs, textInputs, options);
  if (options.engine === 'dbos') {
    const { runOnDbos } = await import('../flow/dbos-commands.js');
    return runOnDbos(io, planFile, { inputs, textInputs }, options);
  }
  for (const [flag, given] of [
    ['--detach', options.detach],
    ['--run-id', options.runId],
    ['--database-url', options.databaseUrl],
    ['--remote', options.remote],
  ] as const)
    if (given !== undefined && given !== false)
      throw new UsageError('CLI_ENGINE_OPTION', `${flag} is an option of the dbos engine`, {
        hint: 'add --engine dbos',
      });
  const output = flowOutput(io, { json: options.json === true });
  const interactive = options.json !== true && io.stdout.isTTY === true && process.stdin.isTTY === true;
  const { signal, dispose, interrupt } = interruptOnSignals(io);
  const attached = await attachRun(home, `neo flow run ${planFile}`, output.observer, interrupt);
  let metrics: ProcessMetrics | undefined;
  try {
    metrics = await openMetrics(io, port, attached?.sessionHost.metrics);
    const sessionHost = { ...attached?.sessionHost, metrics: metrics.sink };
    const outcome = await startRun({
      home,
      cwd: io.cwd,
      planFile,
      inputs,
      textInputs,
      observer: attached?.observer ?? output.observer,
      sessionHost,
      signal,
      ...(interactive ? { prompter: terminalPrompter(io, output) } : {}),
      ...defined({ backend: options.backend }),
      ...(options.yes ? { yes: true } : {}),
      ...defined({ isolation: options.isolation }),
      ...(options.watch ? { watch: true } : {}),
    });
    output.close();
    printSummary(io, outcome, output.view, { json: options.json === true });
    return exitCodeOf(outcome);
  } finally {
    output.close();
    dispose();
    await metrics?.close();
    await attached?.close();
  }
}

/**
 * What a real run would refuse: a sandbox asked for that this machine cannot provide (in the plan
 * or a sub-flow), a declared secret that is not set.
 */
async function sandboxWarnings(tree: PlanTree, env: NodeJS.ProcessEnv): Promise<string[]> {
  const refusal = (error: unknown) => {
    const e = error as { message?: string; hint?: string };
    return [`warning: a real run would refuse to start: ${e.message}`, ...(e.hint ? [`  hint: ${e.hint}`] : [])];
  };
  const plans = (t: PlanTree): PlanTree['plan'][] => [t.plan, ...Object.values(t.children).flatMap(plans)];
  for (const plan of plans(tree)) {
    try {
      await requirePlanSandboxes(plan, env);
    } catch (error) {
      return refusal(error);
    }
  }
  try {
    requirePlanSecrets(tree, env);
    return [];
  } catch (error) {
    return refusal(error);
  }
}

/** The live availability of every backend the plan's agent steps (and its sub-flows') run on. */
async function probeBackends(
  set: DefinitionSet,
  steps: readonly StepDescription[],
): Promise<Array<{ id: string } & Availability>> {
  const ids = new Set<string>();
  const visit = (list: readonly StepDescription[]): void => {
    for (const step of list) {
      if (step.kind === 'agent' && step.backend !== undefined) ids.add(step.backend);
      visit(step.subflow?.steps ?? []);
    }
  };
  visit(steps);
  return Promise.all(
    [...ids].map(async (id) => {
      const definition = set.get('backend', id);
      const availability: Availability =
        definition === undefined
          ? { available: false, status: 'unsupported', detail: `no backend \`${id}\` is defined` }
          : await probeBackend(definition);
      return { id, ...availability };
    }),
  );
}

/** --dry-run: every step's effective settings, nothing run (no workspace, no run record). */
async function dryRun(
  io: CommandIO,
  home: string,
  planFile: string,
  inputs: Record<string, unknown>,
  textInputs: Set<string>,
  options: RunFlags,
): Promise<number> {
  const { plan, children, set, file } = await readyPlan({
    planFile,
    cwd: io.cwd,
    home,
    requireBackend: false,
    ...defined({ backendOverride: options.backend }),
  });
  const resolved = resolveInputs(plan.inputs, inputs, textInputs);
  if (resolved.problems.length > 0) {
    const first = resolved.problems[0]!;
    throw new UsageError(
      first.code,
      resolved.problems.map((p) => p.message).join('; '),
      first.hint === undefined ? {} : { hint: first.hint },
    );
  }
  const tree = { plan, children };
  const described = describePlan(plan, children);
  const backends = await probeBackends(set, described.steps);
  const dependencies = await planDependencies({
    projectDir: plan.projectDir,
    home,
    ...defined({ isolation: options.isolation ?? plan.workspace.isolation, mode: plan.workspace.dependencies }),
  });
  const bound = probeProcessBound();
  // Only a dry run plans capabilities: a run does not load that code (docs/architecture.md, "Start-up").
  const { dryRunCapabilities } = await import('./flow-dry-capabilities.js');
  const capabilities = await dryRunCapabilities(described.steps, {
    projectDir: plan.projectDir,
    home,
    set,
    env: io.env,
  });
  const untrusted = untrustedNotice(set, {
    cwd: io.cwd,
    repo: findRepoRoot(dirname(file), { exclude: home }),
  });
  if (options.json) {
    writeJson(io.stdout, {
      ...described,
      untrusted: set.untrusted.map((d) => ({ file: d.span?.file, line: d.span?.start.line, message: d.message })),
      inputs: resolved.values,
      projectDir: plan.projectDir,
      isolation: options.isolation ?? plan.workspace.isolation ?? 'worktree (git) / copy',
      processBound: bound.detail,
      dependencies: { mode: dependencies.mode, folders: dependencies.folders, from: dependencies.from },
      backends,
      sandboxWarnings: await sandboxWarnings(tree, io.env),
      capabilities,
    });
    return EXIT.ok;
  }
  const p = painter(useColor(io.stdout, io.env));
  if (untrusted !== undefined) writeLine(io.stdout, p.yellow(`warning: ${untrusted}`));
  writeLine(
    io.stdout,
    `${p.bold(described.name)} · ${described.steps.length} steps · maxParallel ${described.maxParallel} · budget ${described.budgets.join(', ') || 'none'} · nothing will run`,
  );
  const rows = [
    [
      p.dim('STEP'),
      p.dim('KIND'),
      p.dim('BACKEND'),
      p.dim('MODEL'),
      p.dim('EFFORT'),
      p.dim('POSTURE'),
      p.dim('ROUNDS'),
      p.dim('SANDBOX'),
      p.dim('GATE / WHAT'),
    ],
  ];
  const add = (s: StepDescription, path: string) => {
    rows.push([
      `${path === '' ? '' : '  '.repeat(path.split('/').length - 1)}${s.group === 'finally' ? 'finally ' : ''}${path}${s.id}`,
      s.kind,
      s.kind === 'agent' ? (s.backend ?? p.yellow('(none: pass --backend)')) : '-',
      s.model ?? '-',
      s.effort ?? '-',
      s.kind === 'agent' ? `${s.posture} ≤ ${s.ceiling}` : '-',
      s.maxRounds === undefined ? '-' : String(s.maxRounds),
      s.sandbox ?? '-',
      [
        s.gate ? `gate ${s.gate}${s.gateSandbox === undefined ? '' : ` in ${s.gateSandbox}`}` : s.does,
        ...(s.protect === undefined ? [] : [`protect ${collapseProtect(s.protect).join(', ')}`]),
        ...(s.confines === undefined ? [] : [`confines ${s.confines}`]),
        ...(s.gateReport === undefined ? [] : [s.gateReport]),
        ...s.limits,
        ...s.control,
      ].join(' · '),
    ]);
    for (const child of s.subflow?.steps ?? []) add(child, `${path}${s.id}/`);
  };
  for (const s of described.steps) add(s, '');
  writeLine(io.stdout, table(rows));
  for (const [step, meta] of Object.entries(capabilities)) {
    writeLine(io.stdout, `capabilities of ${step}:`);
    for (const line of provisionLines(meta, p)) writeLine(io.stdout, line);
  }
  writeLine(
    io.stdout,
    bound.kind === 'none'
      ? p.yellow(`warning: no process bound on this machine (${bound.detail})`)
      : p.dim(`process bound: ${bound.detail}`),
  );
  writeLine(io.stdout, dependencies.line);
  for (const backend of backends.filter((b) => !b.available)) {
    writeLine(
      io.stdout,
      p.yellow(`warning: backend ${backend.id} is not available here: ${backend.detail ?? backend.status}`),
    );
    if (backend.hint !== undefined) writeLine(io.stdout, p.yellow(`  hint: ${backend.hint}`));
  }
  for (const line of await sandboxWarnings(tree, io.env)) writeLine(io.stdout, p.yellow(line));
  // A backend not available is said above; a script step with no script is the one refusal left.
  for (const problem of await backendProblems(tree, set, { configs: set.configs, env: io.env }))
    if (problem.noScript === true)
      writeLine(io.stdout, p.yellow(`warning: a real run would refuse to start: ${problemText(problem)}`));
  const inputNames = Object.entries(resolved.values);
  if (inputNames.length > 0)
    writeLine(io.stdout, `inputs: ${inputNames.map(([k, v]) => `${k}=${JSON.stringify(v)}`).join(' ')}`);
  return EXIT.ok;
}
