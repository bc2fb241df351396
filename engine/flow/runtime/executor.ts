import { setTimeout as sleep } from 'node:timers/promises';
import type { AgentStepDriver, SessionPort } from '../agent/driver.js';
import { StepGate } from '../agent/gate.js';
import { StepGuard } from '../agent/step-guard.js';
import type { BudgetMoment } from '../core/budget.js';
import type { ExecutionOutcome, ExecutionProgress, ExecutionSpec } from '../core/execution.js';
import type { CompiledPlan, PlanStep, SandboxSetting } from '../core/plan.js';
import type { SessionSandbox } from '../../transports/index.js';
import { lentEnv, runConfinement } from './confine.js';
import { GitMetaWatch, gitMetaEscape } from '../workspace/git-meta.js';
import { unitKey, type StepError } from '../core/state.js';
import type { RunStore } from '../store/run-store.js';
import type { WorkspaceRecord } from '../store/run-files.js';
import type { ApprovalPrompter } from './approvals.js';
import { approvalStep } from './approval-step.js';
import { confinedSpec, confinePath, type ProcessResult, type SandboxBind } from '../../execution/index.js';
import { openStepOutput, readStepOutput } from './step-output.js';
import { BudgetGuard } from './budget-guard.js';
import { commandError, isConfined, maxProcessesOf, runCommand, type CommandSpec } from './command.js';
import { briefWithLessons } from '../agent/lessons-brief.js';
import {
  briefWithMemory,
  memoryBind,
  memorySite,
  noteGateRefusal,
  noteStepOutcome,
  openingMemory,
} from './memory-hook.js';
import { defined } from '../../util/defined.js';
import { NeoError } from '../../util/errors.js';
import { scriptOutsideItsFolder } from './script-path.js';

/** What executions need from the run that owns them. */
export interface ExecutorDeps {
  runId: string;
  home: string;
  plan(): CompiledPlan;
  workspace: WorkspaceRecord;
  store: RunStore;
  yes: boolean;
  prompter?: ApprovalPrompter;
  /** The agent driver and session service, created on first use (plans without agents never load them). */
  agents(): Promise<{ driver: AgentStepDriver; sessions: SessionPort }>;
  /** Runs a sub-flow as its own run and reports its outcome. */
  subflow(spec: ExecutionSpec, step: PlanStep, signal: AbortSignal): Promise<Omit<ExecutionOutcome, 'exec'>>;
  /** When the unit of an execution first started (kept across resumes and retries; a fresh unit has a new one). */
  startedAt(spec: ExecutionSpec): string | undefined;
  /** Whether the run may start another agent turn (`moment`: or go on with the one running). */
  budget(moment?: BudgetMoment): StepError | undefined;
  charge(spec: ExecutionSpec, cost: { turns: number; tokens: number; costUsd: number }): void;
  progress(update: ExecutionProgress): void;
  /** A retry's backoff that outlives the process (the engine's durable sleep); none: a timer. */
  sleep?(spec: ExecutionSpec, ms: number, signal: AbortSignal): Promise<void>;
}

const OUTPUT_TAIL = 16 * 1024;

/**
 * Runs one execution to an outcome, whatever its kind. It first waits until its `step.started`
 * event is durable (nothing happens that the log does not record), sleeps any retry backoff,
 * enforces the step's timeout, and turns every failure into a typed outcome — it never throws.
 */
export async function execute(spec: ExecutionSpec, signal: AbortSignal, deps: ExecutorDeps): Promise<ExecutionOutcome> {
  const step = deps.plan().steps.find((s) => s.id === spec.step);
  try {
    if (step === undefined) throw new Error(`step ${spec.step} is not in the plan`);
    await deps.store.barrier();
    if (spec.delayMs !== undefined && spec.delayMs > 0)
      await (deps.sleep?.(spec, spec.delayMs, signal) ?? sleep(spec.delayMs, undefined, { signal }));
    const { signal: bounded, clear } = withTimeout(signal, step.kind === 'run' ? undefined : step.timeoutMs);
    try {
      const outcome = await executeKind(spec, step, bounded, deps);
      return { exec: spec.exec, ...outcome };
    } finally {
      clear();
    }
  } catch (error) {
    if (signal.aborted)
      return {
        exec: spec.exec,
        status: 'failed',
        outputs: {},
        error: { code: 'FLOW_INTERRUPTED', message: 'interrupted' },
      };
    // neo's own refusal keeps its code and hint (a project layer it cannot bind, FLOW_PROJECT_LAYER_UNBOUND).
    const own = error instanceof NeoError ? stepErrorOf(error) : undefined;
    const message = error instanceof Error ? error.message : String(error);
    return { exec: spec.exec, status: 'failed', outputs: {}, error: own ?? { code: 'FLOW_EXECUTOR_ERROR', message } };
  }
}

async function executeKind(
  spec: ExecutionSpec,
  step: PlanStep,
  signal: AbortSignal,
  deps: ExecutorDeps,
): Promise<Omit<ExecutionOutcome, 'exec'>> {
  switch (step.kind) {
    case 'approval':
      return approvalStep(spec, step, signal, deps);
    case 'flow':
      return deps.subflow(spec, step, signal);
    case 'run':
    case 'agent': {
      const cwd = await stepCwd(step, deps.workspace.path);
      if (typeof cwd !== 'string') return { status: 'failed', outputs: {}, error: cwd };
      return step.kind === 'run' ? runStep(spec, step, cwd, signal, deps) : agentStep(spec, step, cwd, signal, deps);
    }
  }
}

/**
 * Where a run or agent step works: its `cwd` inside the workspace, followed as the kernel follows
 * it (a symlink out, `..` or an absolute path elsewhere is refused, and so is git's metadata — an
 * agent confined there could rewrite the config git runs commands from).
 */
async function stepCwd(step: PlanStep, workspace: string): Promise<string | StepError> {
  if (step.cwd === undefined) return workspace;
  const confined = await confinePath(workspace, step.cwd, { refuseGit: true });
  if ('path' in confined) return confined.path;
  return {
    code: 'FLOW_CWD_OUTSIDE',
    message: `step \`${step.id}\` has cwd \`${step.cwd}\`, which is not a folder it may work in: ${confined.problem.reason}`,
    hint: 'a step works inside the run workspace; give cwd as a folder relative to it',
  };
}

/**
 * An agent step, inside its guard (whatever the backend and driver): the base and the escape
 * check are taken before the agent starts, and the outcome carries the step's net diff.
 */
async function agentStep(
  spec: ExecutionSpec,
  step: PlanStep,
  cwd: string,
  signal: AbortSignal,
  deps: ExecutorDeps,
): Promise<Omit<ExecutionOutcome, 'exec'>> {
  const outside = spec.script === undefined ? undefined : scriptOutsideItsFolder(step.agent!.script!, spec.script);
  if (outside !== undefined) return { status: 'failed', outputs: {}, error: outside };
  const settings = spec.script === undefined ? step.agent! : { ...step.agent!, script: spec.script };
  const { driver, sessions } = await deps.agents();
  const key = `${unitKey(spec.step, spec.item)}.${spec.iteration}`;
  let guard: StepGuard;
  let gate: StepGate;
  // A gate that cannot be trusted (a dependency folder the agent changed) stops the step with its own code.
  const refused = new AbortController();
  try {
    guard = await StepGuard.open({
      workspace: deps.workspace,
      home: deps.home,
      runDir: deps.store.dir,
      key,
      startedAt: deps.startedAt(spec) ?? spec.exec,
      cwd,
      editToolNames: settings.editToolNames,
      sessions,
      signal,
      unconfined: step.sandbox?.kind !== 'bwrap',
    });
  } catch (error) {
    return { status: 'failed', outputs: {}, error: stepErrorOf(error) };
  }
  try {
    gate = await StepGate.open({
      workspace: deps.workspace,
      home: deps.home,
      runId: deps.runId,
      key,
      startedAt: deps.startedAt(spec) ?? spec.exec,
      settings,
      site: {
        cwd,
        env: spec.env,
        signal: guard.signal,
        run: { workspace: deps.workspace, home: deps.home },
      },
      refuse: (error) => refused.abort(error),
    });
  } catch (error) {
    guard.close();
    return { status: 'failed', outputs: {}, error: stepErrorOf(error) };
  }
  // Inside the step guard: a budget crossed mid-turn stops the turn like any other abort.
  const budget = new BudgetGuard(AbortSignal.any([guard.signal, refused.signal]), (moment) => deps.budget(moment));
  const site = memorySite(spec, deps);
  const asked = spec.brief ?? step.agent!.brief;
  let gateRuns = 0;
  try {
    const outcome = await driver.drive(
      {
        runId: deps.runId,
        step: spec.step,
        ...defined({ item: spec.item }),
        exec: spec.exec,
        settings,
        brief: await briefWithMemory(site, await briefWithLessons(deps.home, asked, settings), asked, settings, cwd),
        cwd,
        ...defined({ idleTimeoutMs: step.idleTimeoutMs }),
      },
      {
        sessions: openingMemory(
          step.sandbox === undefined
            ? guard.sessions
            : sandboxedSessions(guard.sessions, agentSandbox(step.sandbox, cwd, deps)),
          site,
        ),
        signal: budget.signal,
        budget: () => deps.budget(),
        charge: (cost) => {
          deps.charge(spec, cost);
          budget.charged(cost.turns > 0);
        },
        progress: (update) =>
          deps.progress({
            ...update,
            exec: spec.exec,
            step: spec.step,
            ...defined({ item: spec.item }),
          }),
        runGate: async (verify) => {
          // With `baseline`, the first run judges the untouched workspace: nothing the agent tried.
          const index = gateRuns++;
          const judgesAgent = index > 0 || verify.baseline !== true;
          const run = await gate.run(verify, { base: !judgesAgent });
          // A refusal of what the agent called done: worth remembering with what it tried.
          if (!run.passed && judgesAgent)
            await noteGateRefusal(site, { ...settings, brief: asked }, run, () => guard.stepDiff(), index);
          return run;
        },
        stepDiff: () => guard.stepDiff(),
        now: () => Date.now(),
      },
    );
    const judged = await gate.verdict(outcome, settings);
    const settled = await guard.settle(budget.verdict(judged));
    await noteStepOutcome(site, { ...settings, brief: asked }, settled);
    return withUntil(settled, step, cwd, spec, signal, deps);
  } finally {
    budget.close();
    guard.close();
  }
}

async function runStep(
  spec: ExecutionSpec,
  step: PlanStep,
  cwd: string,
  signal: AbortSignal,
  deps: ExecutorDeps,
): Promise<Omit<ExecutionOutcome, 'exec'>> {
  // What git runs is never a step's to set: its metadata is compared with the step's start.
  const git = await GitMetaWatch.open(deps.workspace);
  // $NEO_OUTPUT lives in a fresh folder of its own: the run's folder is never in a step's reach.
  const output = openStepOutput(deps.home, deps.runId, isConfined(step.sandbox));
  let result: ProcessResult;
  let written: ReturnType<typeof readStepOutput>;
  try {
    result = await runCommand({
      command: step.run!.command,
      cwd,
      env: { ...spec.env, NEO_OUTPUT: output.file },
      signal,
      ...sandboxOfStep(step, deps, step.sandbox, [output.bind]),
      ...defined({ timeoutMs: step.timeoutMs, idleTimeoutMs: step.idleTimeoutMs }),
    });
  } finally {
    // Read once and removed, whatever happened: no output folder outlives its step.
    written = readStepOutput(output);
  }
  // neo's own last: the step names what it writes to $NEO_OUTPUT, and `exitCode=0` there must
  // not read as the exit code neo saw (a finally step's `if` or "$NEO_STEP_T_EXITCODE").
  const outputs: Record<string, unknown> = {
    ...('outputs' in written ? written.outputs : {}),
    exitCode: result.exitCode ?? null,
    stdout: tail(result.stdout),
    stderr: tail(result.stderr),
  };
  const tampered = git.tampered();
  if (tampered.length > 0)
    return { status: 'failed', verdict: 'escaped', outputs, error: gitMetaEscape(deps.workspace.root, tampered) };
  const error =
    commandError(step.run!.command, result, step.sandbox) ?? ('error' in written ? written.error : undefined);
  if (error !== undefined) return { status: 'failed', outputs, error };
  return withUntil({ status: 'succeeded', outputs }, step, cwd, spec, signal, deps);
}

/** After a successful loop iteration, runs `loop.untilRun` to tell whether the loop is done. */
async function withUntil(
  outcome: Omit<ExecutionOutcome, 'exec'>,
  step: PlanStep,
  cwd: string,
  spec: ExecutionSpec,
  signal: AbortSignal,
  deps: ExecutorDeps,
): Promise<Omit<ExecutionOutcome, 'exec'>> {
  const check = step.loop?.untilRun;
  if (check === undefined || outcome.status !== 'succeeded') return outcome;
  const git = await GitMetaWatch.open(deps.workspace);
  const result = await runCommand({
    command: check,
    cwd,
    env: spec.env,
    signal,
    ...sandboxOfStep(step, deps, step.loop?.untilSandbox ?? step.sandbox),
  });
  const tampered = git.tampered();
  if (tampered.length > 0)
    return { ...outcome, status: 'failed', verdict: 'escaped', error: gitMetaEscape(deps.workspace.root, tampered) };
  return { ...outcome, untilPassed: result.exitCode === 0 };
}

/** A typed error thrown while a step's baselines were taken, as the step's error. */
function stepErrorOf(error: unknown): StepError {
  const e = error as { code?: string; message?: string; hint?: string };
  return {
    code: e.code ?? 'FLOW_EXECUTOR_ERROR',
    message: e.message ?? String(error),
    ...(e.hint ? { hint: e.hint } : {}),
  };
}

/**
 * The sandbox of an agent step's CLI: the network on (it must reach its model) and the run's
 * confinement. Of the user's home it sees nothing: the transport adds the session's own home
 * (engine/transports/shared/agent-home.ts), seeded with what the CLI needs to reach its model.
 */
function agentSandbox(setting: SandboxSetting, cwd: string, deps: ExecutorDeps): SessionSandbox {
  const spec = confinedSpec(
    runConfinement(
      { workspace: deps.workspace, home: deps.home },
      { ...setting, network: true },
      { cwd, env: process.env },
    ),
  );
  const lent = setting.kind === 'none' ? {} : lentEnv(deps.workspace);
  return {
    kind: setting.kind,
    binds: [...spec.binds, ...memoryBind(deps.home, deps.workspace)],
    hide: [...spec.hide],
    network: true,
    maxProcesses: maxProcessesOf(setting),
    ...(Object.keys(lent).length === 0 ? {} : { env: lent }),
  };
}

/**
 * The step's session port with its sandbox set on every start, whoever asks (the built-in
 * driver or a persona's decider): a start cannot choose its own confinement inside a flow.
 */
function sandboxedSessions(sessions: SessionPort, sandbox: SessionSandbox): SessionPort {
  return {
    execute: (input, caller) => sessions.execute(input.op === 'start' ? { ...input, sandbox } : input, caller),
    setScopeConstraints: (scope, constraints) => sessions.setScopeConstraints(scope, constraints),
    onSessionEvent: (listener) => sessions.onSessionEvent(listener),
    releaseAllOwnedBy: (scope) => sessions.releaseAllOwnedBy(scope),
  };
}

/** The sandbox a step's own commands run in (none for a plan compiled before sandboxes), with `binds` on top. */
function sandboxOfStep(
  step: PlanStep,
  deps: ExecutorDeps,
  setting: SandboxSetting | undefined = step.sandbox,
  binds?: readonly SandboxBind[],
): Pick<CommandSpec, 'sandbox'> {
  if (setting === undefined) return {};
  return {
    sandbox: { setting, site: { workspace: deps.workspace, home: deps.home }, ...defined({ binds }) },
  };
}

function tail(text: string): string {
  return text.length <= OUTPUT_TAIL ? text : `…${text.slice(-OUTPUT_TAIL)}`;
}

/** A signal that also aborts after `ms`, with a FLOW_STEP_TIMEOUT reason. */
function withTimeout(signal: AbortSignal, ms: number | undefined): { signal: AbortSignal; clear: () => void } {
  if (ms === undefined) return { signal, clear: () => {} };
  const controller = new AbortController();
  const timer = setTimeout(
    () =>
      controller.abort({
        code: 'FLOW_STEP_TIMEOUT',
        message: `the step ran past its timeout of ${Math.round(ms / 100) / 10}s`,
      }),
    ms,
  );
  const onAbort = () => controller.abort(signal.reason);
  signal.addEventListener('abort', onAbort, { once: true });
  return {
    signal: controller.signal,
    clear: () => {
      clearTimeout(timer);
      signal.removeEventListener('abort', onAbort);
    },
  };
}
