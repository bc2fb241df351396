import type { ProjectProfile } from '../../capabilities/index.js';
import type { DefinitionSet } from '../../definitions/index.js';
import type { AgentStepDriver, SessionPort } from '../agent/driver.js';
import type { CompiledPlan, SandboxSetting } from '../core/plan.js';
import type { RunState, StepError } from '../core/state.js';
import type { RunRecord, WorkspaceRecord } from '../store/run-files.js';
import type { Isolation, WorkspaceSummary } from '../workspace/index.js';
import type { AgentServices } from './agents.js';
import type { ApprovalPrompter } from './approvals.js';
import type { DriveResult, ParentLink } from './drive.js';
import { defined } from '../../util/defined.js';
import type { SessionHost } from './session-host.js';
import type { RunObserver } from './observer.js';
import type { RunEvent } from '../core/events.js';
import type { StepEngine } from '../engines/engine.js';

/** What every way of running a flow shares. */
export interface RunEnvironment {
  /** NEO_HOME. */
  home: string;
  cwd: string;
  observer?: RunObserver;
  /** Asks approvals at the terminal (only when there is one). */
  prompter?: ApprovalPrompter;
  /** Ctrl-C: interrupt, checkpoint, leave the run resumable. */
  signal?: AbortSignal;
  /** `--yes`: answer every approval with its first passing decision, and record that. */
  yes?: boolean;
  /** Seams for tests and the driving-personas layer. */
  driver?: AgentStepDriver;
  sessions?: SessionPort;
  /** Where the run's session service reports (a control plane the process is attached to). */
  sessionHost?: SessionHost;
}

export interface StartOptions extends RunEnvironment {
  planFile: string;
  inputs?: Record<string, unknown>;
  /** Inputs given as text (`--input k=v`), converted to their declared types. */
  textInputs?: ReadonlySet<string>;
  /** `--backend X`: every agent step's backend. */
  backend?: string;
  isolation?: Isolation;
  /** The commit the workspace starts from, over the plan's `workspace.base` (a worker's run from a remote). */
  base?: string;
  /** Apply edits of the plan and its personas to steps that have not started. */
  watch?: boolean;
  /** A durable engine's run: its id, the events it recorded before this process took it over, its step hooks. */
  engine?: DurableRun;
}

/**
 * A run a durable engine keeps: its id, the events it recorded before this process took it over,
 * its step hooks, and how a sub-flow of it is kept (its own recorded events and step hooks,
 * under the child's run id), so a takeover finds the sub-flow's finished steps too.
 */
export interface DurableRun {
  runId: string;
  history: RunEvent[];
  steps: StepEngine;
  child?: (runId: string) => Promise<DurableRun>;
  /**
   * Pins the plan's hash (with the project's neo.yaml layers and `.env`: `durablePinHash`) the
   * first time the run compiles it and refuses (throws) a later start — another worker's takeover,
   * a resume — that compiled another: a confined step may have rewritten the plan, a definition,
   * the project's neo.yaml or its `.env` in the workspace since.
   */
  pinPlan?: (hash: string, file: string) => Promise<void>;
  /** The capability profile pinned at the run's first start; `detect` runs only when none is pinned yet. */
  pinProfile?: (detect: () => Promise<ProjectProfile | undefined>) => Promise<ProjectProfile | undefined>;
}

export interface ResumeOptions extends RunEnvironment {
  runId: string;
  /** Steps (and everything downstream of them) to run again although they finished. */
  rerun?: string[];
  /** Use the current definition files instead of the pinned plan. */
  rebaseDefinitions?: boolean;
}

/** How a run ended (or paused). */
export interface RunOutcome {
  runId: string;
  status: RunState['status'];
  reason?: StepError;
  state: RunState;
  plan: CompiledPlan;
  record: RunRecord;
  summary?: WorkspaceSummary;
}

/** What a run that `drive` settled tells its caller (a start, a resume). */
export function outcomeOf(result: DriveResult): RunOutcome {
  return {
    runId: result.record.runId,
    status: result.state.status,
    ...defined({ reason: result.state.reason }),
    state: result.state,
    plan: result.plan,
    record: result.record,
    ...defined({ summary: result.summary }),
  };
}

/** What a sub-flow takes from its parent. */
export interface ChildContext {
  set: DefinitionSet;
  agents: AgentServices;
  workspace: WorkspaceRecord;
  link: ParentLink;
  runId: string;
  backend?: string;
  /** The parent step that runs it: its sandbox is the floor of every step of the sub-flow. */
  parentStep?: { id: string; sandbox?: SandboxSetting };
  /** The parent's run is a durable engine's: the sub-flow is kept there too. */
  engine?: DurableRun;
}
