import type { WorkspaceRecord } from '../store/run-files.js';

export type Isolation = WorkspaceRecord['isolation'];

/** A prepared workspace: where steps run, and what to do when the run ends. */
export interface Workspace {
  readonly record: WorkspaceRecord;
  /** Notes for the user (e.g. uncommitted changes a worktree leaves out). */
  readonly warnings: string[];
  /** Called once when the run settles: commits a succeeded worktree, releases locks. */
  finish(outcome: { status: string; flow: string; runId: string }): Promise<WorkspaceSummary>;
  /** Releases what the workspace holds without finishing (an interrupted run). */
  release(): Promise<void>;
}

/** What the final summary says about the workspace. */
export interface WorkspaceSummary {
  lines: string[];
  /** Files that differ from where the run started. */
  changedFiles?: number;
  commit?: string;
}
