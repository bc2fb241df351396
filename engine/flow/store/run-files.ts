import { join } from 'node:path';
import { checkId } from '../../util/ids.js';
import type { Ledger, RunStatus, StepError } from '../core/state.js';

/** The run's folder and files under NEO_HOME; an id that is not a run id never becomes a path. */
export function runDir(home: string, runId: string): string {
  return join(home, 'runs', checkId('run', runId));
}

/** The folder of a run's approval answers (and its personas' questions): outside the run folder, sealed one by one. */
export function approvalsDir(home: string, runId: string): string {
  return join(home, 'approvals', checkId('run', runId));
}

export const RUN_FILES = {
  record: 'run.json',
  plan: 'plan.json',
  snapshot: 'snapshot.json',
  events: 'events.jsonl',
  lock: 'lock',
} as const;

/** One definition a run used, pinned by its digest. */
export interface PinnedDefinition {
  kind: string;
  id: string;
  file: string;
  digest: string;
}

/** Where a run's agents work. */
export interface WorkspaceRecord {
  isolation: 'worktree' | 'inplace' | 'copy';
  /** The folder steps run in (the project directory inside the workspace). */
  path: string;
  /** The workspace's root (worktree or copy root; the checkout for inplace). */
  root: string;
  /** The original project directory. */
  projectDir: string;
  /** The repository the worktree belongs to. */
  repo?: string;
  branch?: string;
  /** The commit the worktree started from. */
  baseCommit?: string;
  /** The worktree's git dir and the repository's common dir, as created: every git call is pinned to them. */
  gitDir?: string;
  commonDir?: string;
  /** The checkout's dependency folders lent to it (workspace/lend.ts): every sandbox shows `from` and `shows` read-only. */
  dependencies?: Array<{ path: string; from: string; shows?: string[] }>;
  /**
   * The Go/Rust toolchains and module caches lent to it (workspace/toolchains.ts): every sandbox
   * shows `readOnly` read-only and sets `env` for its processes.
   */
  toolchains?: { ecosystems: string[]; readOnly: string[]; env: Record<string, string> };
}

/** What a run shows for a step in run.json (the full state is in snapshot.json). */
export interface StepSummary {
  status: string;
  verdict?: string;
  error?: StepError;
}

/** run.json: the run's manifest and current status, replaced atomically on every change. */
export interface RunRecord {
  version: 1;
  runId: string;
  flow: string;
  planFile: string;
  /** `tampered` only as shown: a record or log whose MAC failed (`reason` says which). */
  status: RunStatus | 'waiting' | 'tampered';
  reason?: StepError;
  /** As shown only: a run recorded before neo authenticated its runs (no MAC to check). */
  unverified?: true;
  createdAt: string;
  updatedAt: string;
  /** The process driving the run now (absent once it finished). */
  pid?: number;
  /** That process's start time (clock ticks since boot): with `pid`, it names the process for good. */
  pidStart?: number;
  inputs: Record<string, unknown>;
  manifest: {
    /** The definition-set hash the run started with. */
    setHash: string;
    /** The content hash of the compiled plan the run pinned (plan.json). */
    planHash: string;
    definitions: PinnedDefinition[];
    /**
     * A keyed MAC of the trusted project's `.env` variables as the run read them (never the
     * values: they are secrets); a resume refuses a changed one (flow/runtime/dotenv-pin.ts).
     */
    projectDotenv?: { file: string; mac: string };
  };
  workspace?: WorkspaceRecord;
  options: { backend?: string; yes?: boolean };
  /** A sub-flow's parent run. */
  parent?: { runId: string; step: string };
  ledger: Ledger;
  steps: Record<string, StepSummary>;
  /** Approvals waiting for an answer. */
  waiting?: Array<{ step: string; prompt: string; decisions: string[] }>;
  /** What the workspace looked like when the run settled (branch, commits, merge command). */
  summary?: { lines: string[]; changedFiles?: number; commit?: string };
  /** Every process that ran this run: the first start, then each resume. */
  segments: Array<{
    pid: number;
    /** The process's start time; its process groups are journaled under NEO_HOME/processes/<pid>-<start>.jsonl. */
    pidStart?: number;
    startedAt: string;
    rerun?: string[];
    rebased?: boolean;
    yes?: boolean;
  }>;
}
