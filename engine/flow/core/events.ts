import type { RunInfo, RunStatus, StepError } from './state.js';

/**
 * What happened in a run, one record per transition. The list is the run's truth: its state is
 * the fold of these ({@link reduce}), events.jsonl holds them with a gapless `seq`, and a resume
 * rebuilds the state from them.
 */
export type RunEventBody =
  | {
      type: 'run.started';
      flow: string;
      steps: string[];
      inputs: Record<string, unknown>;
      env: Record<string, string>;
      run: RunInfo;
    }
  /**
   * A new process took the run over; `reset` steps start over from scratch. With
   * --rebase-definitions, `rebased` lists the steps the current files added, removed or changed.
   */
  | {
      type: 'run.resumed';
      rerun: string[];
      reset: string[];
      rebased?: { hash: string; added: string[]; removed: string[]; changed: string[] };
    }
  | { type: 'step.skipped'; step: string; reason: string }
  | { type: 'step.expanded'; step: string; items: unknown[] }
  | { type: 'step.started'; step: string; item?: number; attempt: number; iteration: number; exec: string }
  | { type: 'step.retrying'; step: string; item?: number; attempt: number; delayMs: number; error: StepError }
  | { type: 'step.iterated'; step: string; item?: number; iteration: number; outputs: Record<string, unknown> }
  | {
      type: 'step.completed';
      step: string;
      item?: number;
      status: 'succeeded' | 'failed' | 'cancelled';
      outputs?: Record<string, unknown>;
      verdict?: string;
      error?: StepError;
    }
  | { type: 'ledger.charged'; step: string; item?: number; turns: number; tokens: number; costUsd: number }
  | { type: 'run.stopping'; error: StepError }
  | { type: 'run.interrupted'; reason: string }
  | { type: 'run.finished'; status: Exclude<RunStatus, 'running' | 'interrupted'>; reason?: StepError }
  /** A watched edit changed steps that had not started. */
  | { type: 'plan.updated'; hash: string; added: string[]; removed: string[]; changed: string[] };

/** A persisted event: seq is gapless from 1, at is an ISO time. */
export type RunEvent = RunEventBody & { seq: number; at: string };
