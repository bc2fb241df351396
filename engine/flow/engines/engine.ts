/**
 * The seam between neo's flows and the engine that makes them durable. The flow core
 * (engine/flow/core: advance, reduce) is the one source of flow semantics on every engine; an
 * engine only decides where a run lives and what survives a process: `local` keeps a run in this
 * process and NEO_HOME (the default: no database), `dbos` runs it as a DBOS Transact workflow
 * on PostgreSQL that any worker can take over (engines/dbos, loaded only when asked for).
 *
 * The interface is named after what a durable engine gives, so a Temporal adapter has the same
 * shape: a run is a workflow, a step an activity (idempotent by its id), a signal a signal, a
 * sleep a durable timer (docs/scale-out.md).
 */
import type { ExecutionOutcome } from '../core/execution.js';
import type { RunState } from '../core/state.js';

/** The engines neo can run a flow on. */
export const ENGINE_NAMES = ['local', 'dbos'] as const;
export type EngineName = (typeof ENGINE_NAMES)[number];

/** A run to start: the plan file and its inputs, as `neo flow run` takes them. */
export interface RunRequest {
  runId: string;
  planFile: string;
  cwd: string;
  inputs: Record<string, unknown>;
  backend?: string;
  yes?: boolean;
  /** A run whose workspace travels through a git remote: any worker that can fetch it can run it. */
  remote?: RemoteWorkspace;
}

/**
 * What a worker on another machine needs to start a run without the enqueuer's folders: the
 * remote (a bare repository's path or a URL), the base commit pushed to it, and the plan as the
 * enqueuer checked it (its text and its path in the repository). The project's own definitions
 * (`.neo/`) come with the repository at the base commit.
 */
export interface RemoteWorkspace {
  url: string;
  base: string;
  /** The plan file's path in the repository (`/`-separated). */
  plan: string;
  planText: string;
  /** The enqueuer's folder in the repository (`.` for its top): where definitions are looked up from. */
  cwd: string;
}

/** What an engine reports of a run, whichever machine drove it. */
export interface RunResult {
  runId: string;
  status: RunState['status'];
  reason?: { code: string; message: string };
}

/**
 * What a run needs of its engine while it is driven: a step run at least once and recorded once
 * (a second execution with the same key returns the first recorded outcome, never runs again),
 * a signal awaited (an approval's answer), a sleep that survives the process (retry backoff).
 */
export interface StepEngine {
  step(key: string, run: () => Promise<ExecutionOutcome>): Promise<ExecutionOutcome>;
  /** Resolves with the signal's value, or undefined when `signal` aborts first. */
  waitForSignal<T>(key: string, signal: AbortSignal): Promise<T | undefined>;
  sleep(key: string, ms: number, signal: AbortSignal): Promise<void>;
}

/** The operations every engine offers the CLI: start, cancel, result. */
export interface FlowEngine {
  readonly name: EngineName;
  /** Starts (local: drives to rest; dbos: enqueues) a run; a second start of one id is the same run. */
  start(request: RunRequest): Promise<{ runId: string; enqueued: boolean }>;
  cancel(runId: string): Promise<void>;
  /** The run's outcome, waiting at most `timeoutMs` (undefined: not finished by then). */
  result(runId: string, timeoutMs: number): Promise<RunResult | undefined>;
  close(): Promise<void>;
}

/** The key a step's execution is recorded under: one per unit, iteration and attempt. */
export function stepKey(spec: { step: string; item?: number; iteration: number; attempt: number }): string {
  return `${spec.step}${spec.item === undefined ? '' : `[${spec.item}]`}#${spec.iteration}.${spec.attempt}`;
}
