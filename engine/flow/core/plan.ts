import type { StepGate, StepSettings } from '../../persona/index.js';

/** A step's kind, from which of its keys are set. */
export type StepKind = 'agent' | 'run' | 'approval' | 'flow';

/** When a step may start, given its needs. */
export type JoinRule = 'all_success' | 'all_done' | 'one_success';

/** Where a command, gate or agent CLI runs, and why (`step fix`, `flow`, `owner policy (…)`, `default`). */
export interface SandboxSetting {
  kind: 'none' | 'bwrap';
  network: boolean;
  source: string;
  /**
   * Names of variables of neo's environment its commands keep inside the sandbox (the flow's and
   * the step's `secrets:`); an unconfined command has neo's whole environment anyway.
   */
  secrets?: string[];
  /** Most processes its commands may have at once (absent in a plan compiled before the bound: the default). */
  maxProcesses?: number;
}

/** A compiled plan and, by step id, the compiled plans of its sub-flow steps, as they will run. */
export interface PlanTree {
  plan: CompiledPlan;
  children: Record<string, PlanTree>;
}

/** A verify gate, normalized: what a drive reads, and where it runs. */
export interface GateSpec extends StepGate {
  /** Its sandbox (absent in a plan compiled before sandboxes: none). */
  sandbox?: SandboxSetting;
}

/** One named decision of an approval. */
export interface Decision {
  id: string;
  label: string;
  /** Choosing it fails the step. */
  fail: boolean;
}

/** What an agent step runs with, after every layer narrowed it: what a drive reads, and the flow's own. */
export interface AgentSettings extends StepSettings {
  verify?: GateSpec;
  /** Tools the persona limits itself to that this backend cannot enforce (reported, not silently dropped). */
  unenforcedTools?: string[];
  /**
   * The agent runs inside neo (neo's own agent, the script player): a sandbox holds the commands
   * it runs, not the agent, whose file tools neo holds to the workspace by path.
   */
  inProcess?: boolean;
  /** Append the distilled lessons to the brief (as untrusted data). */
  lessons?: boolean;
  /** What of the repository's memory goes into the brief (as untrusted data). */
  memory?: { decisions?: true; map?: number; state?: true };
  /** Paths the agent must not change (the persona's and the step's globs); its gate judges them as they were. */
  protect?: string[];
  /** An edit to a protected path is reported but does not fail the step. */
  allowProtectedEdits?: boolean;
  /** The backend replays a script (no model, nothing spent): the costs it reports are the script's, simulated. */
  simulated?: true;
}

/** One step, normalized: defaults applied, durations in ms, paths absolute. */
export interface PlanStep {
  id: string;
  name?: string;
  kind: StepKind;
  /** `finally` steps run after every main step is done, whatever happened. */
  group: 'main' | 'finally';
  needs: string[];
  /** Transitive needs: the steps whose results this one may read. */
  reach: string[];
  join: JoinRule;
  if?: string;
  foreach?: { items: unknown[] | string; maxParallel?: number };
  loop?: {
    until?: string;
    untilRun?: string;
    maxIterations: number;
    /** An agent step's `untilRun` check: a command, with the network only when the step asks (its own `sandbox` is its CLI's). */
    untilSandbox?: SandboxSetting;
  };
  retry?: { attempts: number; backoffMs: number; on: 'transient' | 'any' };
  timeoutMs?: number;
  idleTimeoutMs?: number;
  continueOnError: boolean;
  /** Environment templates (values may hold `${{ }}`). */
  env: Record<string, string>;
  /** Working directory, relative to the workspace. */
  cwd?: string;
  /** Where its command (run step, `loop.untilRun`) or agent CLI runs. */
  sandbox?: SandboxSetting;
  agent?: AgentSettings;
  run?: { command: string };
  approval?: { prompt: string; decisions: Decision[] };
  flow?: { file: string; inputs: Record<string, unknown> };
}

/** A declared input. */
export interface InputSpec {
  type: 'string' | 'number' | 'boolean' | 'list' | 'object';
  description?: string;
  default?: unknown;
  required: boolean;
  enum?: unknown[];
}

/** Run-wide limits, normalized. */
export interface PlanBudgets {
  maxCostUsd?: number;
  maxTurns?: number;
  maxTokens?: number;
  maxDurationMs?: number;
}

/** A flow compiled for running: everything the engine needs, serializable, pinned by a run. */
export interface CompiledPlan {
  name: string;
  description?: string;
  /** The plan file, absolute. */
  file: string;
  /** The project directory, absolute. */
  projectDir: string;
  inputs: Record<string, InputSpec>;
  /** Flow-wide environment templates. */
  env: Record<string, string>;
  workspace: { isolation?: 'worktree' | 'inplace' | 'copy'; base?: string; dependencies?: 'reuse' | 'none' };
  maxParallel: number;
  budgets: PlanBudgets;
  /** Main steps, then finally steps, in file order. */
  steps: PlanStep[];
}
