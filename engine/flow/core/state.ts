import { StepTable } from './step-table.js';
import type { StepError, UnitState, UnitStatus } from './step-state.js';

export type { StepError, StepState, UnitState, UnitStatus } from './step-state.js';

/** What the run spent, across steps, sub-flows and resumes. */
export interface Ledger {
  turns: number;
  tokens: number;
  costUsd: number;
  /** Wall time the run was alive (gaps while no process ran it are not counted). */
  wallMs: number;
}

/** The values expressions read under `run`. */
export interface RunInfo {
  id: string;
  workspace: string;
  projectDir: string;
  branch?: string;
}

export type RunStatus = 'running' | 'succeeded' | 'failed' | 'interrupted';

/**
 * A run's whole state: the fold of its events. Serializable; it is what the run loop holds, the
 * content of snapshot.json, and what a resume starts from.
 */
export interface RunState {
  runId: string;
  seq: number;
  status: RunStatus;
  reason?: StepError;
  /** Set when the run must stop starting main steps (a budget ran out). */
  stopping?: StepError;
  inputs: Record<string, unknown>;
  env: Record<string, string>;
  run: RunInfo;
  /** Every step's state, in the plan's order: a persistent table (see step-table.ts). */
  steps: StepTable;
  ledger: Ledger;
  /** Time of the last event, for wall-time accounting. */
  lastAt?: string;
}

const TERMINAL: ReadonlySet<UnitStatus> = new Set(['succeeded', 'failed', 'skipped', 'cancelled']);

export function isTerminal(status: UnitStatus): boolean {
  return TERMINAL.has(status);
}

/** A fresh unit. */
export function pendingUnit(): UnitState {
  return { status: 'pending', attempt: 1, iteration: 1, executions: 0 };
}

/** The key of a unit: the step id, or `id[index]` for a foreach item. */
export function unitKey(step: string, item?: number): string {
  return item === undefined ? step : `${step}[${item}]`;
}

/** A new run's state, before its first event. */
export function initialRunState(runId: string, stepIds: readonly string[]): RunState {
  return {
    runId,
    seq: 0,
    status: 'running',
    inputs: {},
    env: {},
    run: { id: runId, workspace: '', projectDir: '' },
    steps: StepTable.of(stepIds.map((id) => [id, pendingUnit()])),
    ledger: { turns: 0, tokens: 0, costUsd: 0, wallMs: 0 },
  };
}
