import { access } from 'node:fs/promises';
import { NeoError } from '../../util/errors.js';
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

/** A resumed run's own workspace (`what`: its copy, its worktree) is still there, else FLOW_WORKSPACE_MISSING. */
export async function requireKept(record: WorkspaceRecord, what: string): Promise<void> {
  try {
    await access(record.path);
  } catch {
    throw new NeoError('FLOW_WORKSPACE_MISSING', `the run's ${what} ${record.root} is gone`, {
      hint: 'it cannot be resumed; start a new run',
    });
  }
}
