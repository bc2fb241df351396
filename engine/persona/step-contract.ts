/**
 * What a drive of a flow's agent step reads and reports. The flow engine depends on this layer,
 * not the reverse, so these types are the contract and the flow's own (AgentSettings, GateSpec,
 * ExecutionProgress, AgentTask, AgentContext) extend them with what only the flow uses.
 */
import type { Effort, Posture } from '../definitions/index.js';
import type { ClarifyRule } from '../posture/index.js';
import type { PersonaSessionPort } from './actors.js';

export interface StepError {
  code: string;
  message: string;
  hint?: string;
  transient?: boolean;
}

/** A verify gate as the flow normalized it. */
export interface StepGate {
  run: string;
  /** Agent attempts, counting the first. */
  attempts: number;
  flakeCheck: boolean;
  baseline: boolean;
  timeoutMs?: number;
}

/** What an agent step runs with, after every layer narrowed it (as far as a drive reads it). */
export interface StepSettings {
  brief: string;
  persona?: string;
  /** undefined when nothing names one (a run then needs `--backend`). */
  backend?: string;
  model?: string;
  effort?: Effort;
  maxPosture: Posture;
  initialPosture: Posture;
  maxRounds?: number;
  allowedTools?: string[];
  /** A non-driver persona's body: the driven agent's role. */
  appendSystemPrompt?: string;
  /** The script backend's script, absolute. */
  script?: string;
  taskTags: string[];
  verify?: StepGate;
  requireChange: boolean;
  outputSchema?: Record<string, unknown>;
  /** Commands the step's own rules allow when the agent asks. */
  allowCommands: string[];
  /** The persona's deny rules: the step's own rules deny a matching ask before any other rule. */
  denyRules?: ClarifyRule[];
  /** Tool names that edit files on this backend. */
  editToolNames: string[];
  /** Where each knob came from, for --dry-run. */
  provenance: Record<string, string>;
}

/** What a running step reports for the live view (not persisted). */
export interface StepProgress {
  backend?: string;
  model?: string;
  round?: number;
  maxRounds?: number;
  tool?: string;
  filesChanged?: number;
  costUsd?: number;
  note?: string;
  /** What the agent's backend reported while the turn goes on (a retry, a denied ask), as it happens. */
  notice?: string;
  /** The step's code session, told once it started (a person can follow and steer it from then on). */
  sessionId?: string;
}

/** The flow's agent task, as far as a drive reads it. */
export interface FlowAgentTask {
  runId: string;
  step: string;
  item?: number;
  exec: string;
  settings: StepSettings;
  brief: string;
  cwd: string;
  idleTimeoutMs?: number;
}

/** One run of a verify gate, as the flow reports it. */
export interface FlowGateRun {
  passed: boolean;
  exitCode: number | undefined;
  tail: string;
  timedOut: boolean;
  /**
   * Why an exit 0 was no pass: the recognised runner's own summary was missing, showed a failure
   * or no test, or counted fewer tests than the step's base (`exit 0 without pytest's summary: …`).
   */
  unreported?: string;
  flaky?: boolean;
  durationMs: number;
}

/** The flow's agent context, as far as a drive uses it. */
export interface FlowAgentContext {
  sessions: PersonaSessionPort;
  /** Aborted on Ctrl-C, a step timeout or a run stop; `reason` is a StepError. */
  signal: AbortSignal;
  /** Whether the run may start another turn; checked before the start and each guidance. */
  budget(): StepError | undefined;
  charge(cost: { turns: number; tokens: number; costUsd: number }): void;
  progress(update: StepProgress): void;
  runGate(gate: StepGate): Promise<FlowGateRun>;
  /** The step's change so far: from its base to the work tree now. */
  stepDiff(): Promise<{ files: unknown[] }>;
  now(): number;
}

export interface FlowStepOutcome {
  status: 'succeeded' | 'failed';
  outputs: Record<string, unknown>;
  verdict?: string;
  error?: StepError;
}
