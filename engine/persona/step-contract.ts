/**
 * The flow's agent-step contract as the persona layer reads it. The flow engine depends on this
 * layer, not the reverse, so these mirror engine/flow/agent/driver.ts structurally (the flow
 * checks its AgentStepDriver against them when it wires the driver in).
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
export interface FlowGate {
  run: string;
  attempts: number;
  flakeCheck: boolean;
  baseline: boolean;
  timeoutMs?: number;
}

/** The flow's agent task, as far as a drive reads it. */
export interface FlowAgentTask {
  runId: string;
  step: string;
  item?: number;
  exec: string;
  settings: {
    persona?: string;
    backend?: string;
    model?: string;
    effort?: Effort;
    maxPosture: Posture;
    initialPosture: Posture;
    maxRounds?: number;
    allowedTools?: string[];
    appendSystemPrompt?: string;
    script?: string;
    taskTags: string[];
    verify?: FlowGate;
    requireChange: boolean;
    outputSchema?: Record<string, unknown>;
    allowCommands: string[];
    denyRules?: ClarifyRule[];
    editToolNames: string[];
    provenance: Record<string, string>;
  };
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
  progress(update: {
    backend?: string;
    model?: string;
    round?: number;
    maxRounds?: number;
    tool?: string;
    filesChanged?: number;
    costUsd?: number;
    note?: string;
    notice?: string;
  }): void;
  runGate(gate: FlowGate): Promise<FlowGateRun>;
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
