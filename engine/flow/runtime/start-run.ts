import { dirname } from 'node:path';
import { readDotenvLayers } from '../../agent/settings/index.js';
import {
  findRepoRoot,
  formatDiagnostics,
  untrustedNotice,
  watchDefinitions,
  type DefinitionSet,
} from '../../definitions/index.js';
import { UsageError } from '../../util/errors.js';
import { resolveInputs } from '../core/inputs.js';
import { initialRunState } from '../core/state.js';
import { replay } from '../core/reduce.js';
import type { RunRecord } from '../store/run-files.js';
import { RunStore } from '../store/run-store.js';
import { borrowedWorkspace, prepareWorkspace, type Workspace } from '../workspace/index.js';
import { AgentServices } from './agents.js';
import { drive, type DriveInput } from './drive.js';
import { durableDotenvDigest, pinProjectDotenv, type DotenvPin } from './dotenv-pin.js';
import { newRunId } from './ids.js';
import { detectRunProfile } from './run-profile.js';
import { driverFields } from './record.js';
import type { CompiledPlan, PlanTree } from '../core/plan.js';
import type { PinnedDefinition } from '../store/run-files.js';
import { assertCompiled, compileFlowFile, planHash, type LoadedPlan } from './load-plan.js';
import { readyPlan } from './plan-cache.js';
import { durablePinHash } from '../store/plan-pin.js';
import { outcomeOf, type ChildContext, type RunOutcome, type StartOptions } from './options.js';
import { runSubflow } from './subflow.js';
import { requirePlanSandboxes } from './require-sandbox.js';
import { requirePlanSecrets } from './require-secrets.js';
import { requirePlanBackends } from './require-backends.js';
import { refuseUnsafeWatch } from './watch-guard.js';
import { defined } from '../../util/defined.js';
import { packageRoot } from '../../util/package-root.js';

/**
 * Starts a new run of a plan file: load and check definitions, compile, resolve inputs,
 * prepare the workspace, create the run record (pinning definitions, plan and inputs) and
 * drive it to rest.
 */
export async function startRun(options: StartOptions): Promise<RunOutcome> {
  const ready = await readyPlan({
    planFile: options.planFile,
    cwd: options.cwd,
    home: options.home,
    requireBackend: true,
    ...defined({ backendOverride: options.backend }),
    ...(options.watch ? { fresh: true } : {}),
  });
  refuseUnsafeWatch(
    { plan: ready.plan, children: ready.children },
    options.isolation ?? ready.plan.workspace.isolation,
    options.watch === true,
  );
  let current: DefinitionSet = ready.set;
  // Read with the definitions, from the same project, before any step runs; held in memory only
  // (they are secrets, and the run's folder is on disk).
  const dotenv = await readDotenvLayers({ cwd: dirname(ready.file), home: options.home });
  // Before the workspace and the first step (after a durable run's pin: a takeover that reads
  // another project is told so first): an agent step that could not start is said now. Sessions
  // given by the caller (a test's, a host's) start no transport of neo's to ask.
  const requireBackends = async () => {
    if (options.sessions === undefined)
      await requirePlanBackends({ plan: ready.plan, children: ready.children }, ready.set, {
        configs: ready.set.configs,
        dotenv,
        env: process.env,
      });
  };
  const detect = () => detectRunProfile({ home: options.home, plan: ready.plan, set: ready.set, env: process.env });
  // A durable run taken over (or resumed) keeps the profile of its first start: the workspace is
  // now what the run's confined steps left.
  const profile = options.engine?.pinProfile === undefined ? await detect() : await options.engine.pinProfile(detect);
  const agents = new AgentServices(
    options.home,
    { set: () => current, dotenv: () => dotenv, profile: () => profile },
    defined({ driver: options.driver, sessions: options.sessions, host: options.sessionHost }),
  );
  try {
    return await startCompiled(ready.file, ready.set, options, {
      agents,
      requireBackends,
      ...defined({ projectDotenv: pinProjectDotenv(options.home, dotenv) }),
      // Only a durable run pins it for a takeover on another worker; the hash is slow on purpose.
      ...defined({ durableDotenv: options.engine?.pinPlan === undefined ? undefined : durableDotenvDigest(dotenv) }),
      compiled: { plan: ready.plan, pinned: ready.pinned, children: ready.children },
      ...(options.watch && ready.loaded !== undefined
        ? { loaded: ready.loaded, onSet: (set: DefinitionSet) => (current = set) }
        : {}),
    });
  } finally {
    await agents.close();
  }
}

/** Starts a run of `file` from an already loaded set (a top-level run, or a sub-flow). */
export async function startCompiled(
  file: string,
  set: DefinitionSet,
  options: StartOptions,
  context: {
    agents: AgentServices;
    child?: ChildContext;
    loaded?: LoadedPlan;
    onSet?: (set: DefinitionSet) => void;
    /** A top-level run's pin of the project `.env` it read (dotenv-pin.ts). */
    projectDotenv?: DotenvPin;
    /** A top-level durable run's digest of that `.env`, for its plan pin (dotenv-pin.ts). */
    durableDotenv?: string;
    compiled?: { plan: CompiledPlan; pinned: PinnedDefinition[]; children: Record<string, PlanTree> };
    /** A top-level run's check that its agent steps can start here (require-backends.ts). */
    requireBackends?: () => Promise<void>;
  },
): Promise<RunOutcome> {
  const backend = options.backend ?? context.child?.backend;
  const { plan, pinned, children } =
    context.compiled ?? compileChecked(set, file, backend, context.child?.parentStep, options.home);
  const { values: inputs, problems: inputProblems } = resolveInputs(
    plan.inputs,
    options.inputs ?? {},
    options.textInputs ?? new Set(),
  );
  if (inputProblems.length > 0) {
    throw new UsageError(
      inputProblems[0]!.code,
      inputProblems.map((p) => p.message).join('; '),
      inputProblems[0]!.hint === undefined ? {} : { hint: inputProblems[0]!.hint },
    );
  }
  const engine = context.child === undefined ? options.engine : context.child.engine;
  // A durable run compiles what it was started with, from the same project neo.yaml and
  // sub-flows, or nothing runs (no workspace, no record).
  const own = { home: options.home, packageRoot: packageRoot(), ...defined({ dotenv: context.durableDotenv }) };
  await engine?.pinPlan?.(durablePinHash(plan, pinned, own), file);
  await context.requireBackends?.();
  // Nothing starts (no workspace, no run record) where a sandbox asked for cannot be had.
  await requirePlanSandboxes(plan);
  requirePlanSecrets({ plan, children });
  const runId = engine?.runId ?? context.child?.runId ?? newRunId();
  const workspace: Workspace =
    context.child !== undefined
      ? borrowedWorkspace(context.child.workspace)
      : await prepareWorkspace({
          projectDir: plan.projectDir,
          home: options.home,
          runId,
          ...((options.isolation ?? plan.workspace.isolation) === undefined
            ? {}
            : { isolation: (options.isolation ?? plan.workspace.isolation)! }),
          ...defined({ base: options.base ?? plan.workspace.base, dependencies: plan.workspace.dependencies }),
        });
  const now = new Date().toISOString();
  const record: RunRecord = {
    version: 1,
    runId,
    flow: plan.name,
    planFile: file,
    status: 'running',
    createdAt: now,
    updatedAt: now,
    ...driverFields(),
    inputs,
    manifest: {
      setHash: set.hash,
      planHash: planHash(plan),
      definitions: pinned,
      ...defined({ projectDotenv: context.projectDotenv }),
    },
    workspace: workspace.record,
    options: { ...defined({ backend }), ...(options.yes ? { yes: true } : {}) },
    ...(context.child === undefined
      ? {}
      : { parent: { runId: context.child.link.runId, step: context.child.link.step } }),
    ledger: { turns: 0, tokens: 0, costUsd: 0, wallMs: 0 },
    steps: {},
    segments: [{ ...driverFields(), startedAt: now, ...(options.yes ? { yes: true } : {}) }],
  };
  let store: RunStore;
  try {
    store = await RunStore.create(options.home, record, plan);
  } catch (error) {
    await workspace.release();
    throw error;
  }
  // A run taken over from a durable engine: this process's copy of its log starts with what the
  // engine recorded, so it reads whole (and gapless) here too.
  for (const event of engine?.history ?? []) await store.append(event);
  const depth = context.child === undefined ? 0 : context.child.link.depth + 1;
  options.observer?.({ type: 'run', runId, depth, record, plan, resumed: false });
  const untrusted =
    context.child === undefined
      ? untrustedNotice(set, { cwd: options.cwd, repo: findRepoRoot(dirname(file), { exclude: options.home }) })
      : undefined;
  if (untrusted !== undefined)
    options.observer?.({ type: 'notice', runId, depth, level: 'warning', message: untrusted });
  for (const warning of workspace.warnings)
    options.observer?.({ type: 'notice', runId, depth, level: 'warning', message: warning });
  for (const step of plan.steps) {
    // A scripted agent plays fixed actions: no model holds or needs a tool list.
    if (step.agent?.unenforcedTools !== undefined && step.agent.simulated !== true) {
      options.observer?.({
        type: 'notice',
        runId,
        depth,
        level: 'warning',
        message: `step ${step.id}: backend ${step.agent.backend} cannot enforce the persona's tool list (${step.agent.unenforcedTools.join(', ')}); its posture still applies`,
      });
    }
  }
  const input: DriveInput = {
    home: options.home,
    plan,
    // Taken over from a durable engine: the state its record folds to, resumed (a running step runs again).
    state: replay(initialRunState(runId, []), engine?.history ?? []),
    boot:
      (engine?.history.length ?? 0) > 0
        ? { type: 'resume', rerun: [] }
        : {
            type: 'start',
            inputs,
            run: {
              id: runId,
              workspace: workspace.record.path,
              projectDir: plan.projectDir,
              ...defined({ branch: workspace.record.branch }),
            },
          },
    store,
    record,
    workspace,
    set: () => set,
    agents: context.agents,
    yes: options.yes === true,
    ...defined({ observer: options.observer, prompter: options.prompter, signal: options.signal }),
    ...(context.child === undefined ? {} : { parent: context.child.link }),
    ...defined({ steps: engine?.steps }),
    subflow: (spec, step, signal, link) =>
      runSubflow(
        {
          options,
          set,
          agents: context.agents,
          workspace: workspace.record,
          ...defined({ backend, durable: engine }),
        },
        spec,
        step,
        signal,
        link,
      ),
    ...(context.loaded === undefined
      ? {}
      : { watch: watcherFor(context.loaded, file, backend, options, runId, context.onSet) }),
  };
  return outcomeOf(await drive(input));
}

function compileChecked(
  set: DefinitionSet,
  file: string,
  backend: string | undefined,
  parentStep: ChildContext['parentStep'],
  home: string,
): { plan: CompiledPlan; pinned: PinnedDefinition[]; children: Record<string, PlanTree> } {
  const { plan, problems, pinned, children } = compileFlowFile(set, file, {
    home,
    ...defined({ backendOverride: backend }),
    requireBackend: true,
    // A sub-flow runs under the sandbox of the step that runs it (a plan from before: none).
    ...(parentStep === undefined
      ? {}
      : {
          parent: {
            step: parentStep.id,
            sandbox: parentStep.sandbox ?? { kind: 'none', network: false, source: 'default' },
          },
        }),
  });
  assertCompiled(problems, file);
  return { plan, pinned, children };
}

/** `--watch`: a valid edit reaches steps that have not started; an invalid one is reported and ignored. */
function watcherFor(
  loaded: LoadedPlan,
  file: string,
  backend: string | undefined,
  options: StartOptions,
  runId: string,
  onSet?: (set: DefinitionSet) => void,
): DriveInput['watch'] {
  const notice = (level: 'info' | 'warning', message: string) =>
    options.observer?.({ type: 'notice', runId, depth: 0, level, message });
  return async (apply) => {
    const watcher = await watchDefinitions(
      loaded.loader,
      { set: loaded.set, diagnostics: loaded.allDiagnostics },
      (event) => {
        if (event.type === 'rejected') {
          notice(
            'warning',
            `edit ignored (${event.files.join(', ')}):\n${formatDiagnostics(event.diagnostics, { color: false, cwd: options.cwd })}`,
          );
        } else if (event.type === 'reloaded') {
          onSet?.(event.set);
          const compiled = compileFlowFile(event.set, file, {
            home: options.home,
            ...defined({ backendOverride: backend }),
            requireBackend: true,
          });
          if (compiled.problems.length > 0) {
            notice(
              'warning',
              `edit ignored: ${compiled.problems.map((p) => `${p.step ? `step ${p.step}: ` : ''}${p.message}`).join('; ')}`,
            );
            return;
          }
          notice('info', `definitions reloaded (${event.files.join(', ')}); steps that have not started use them`);
          apply(compiled.plan, planHash(compiled.plan));
        } else if (event.type === 'error') {
          notice(
            'warning',
            `watching definitions failed: ${event.error instanceof Error ? event.error.message : String(event.error)}`,
          );
        }
      },
      { paths: [dirname(file)] },
    );
    await watcher.ready;
    return () => watcher.close();
  };
}
