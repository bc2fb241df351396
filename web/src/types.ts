/** The shapes the API returns, as far as the UI reads them. */

export interface SessionRecord {
  sessionId: string;
  backendId: string;
  cwd: string;
  model?: string;
  maxPosture: string;
  posture?: string;
  maxRounds?: number;
  taskBrief: string;
  status: string;
  state?: string;
  createdAt: string;
  updatedAt: string;
  roundsElapsed: number;
  costUsd?: number;
  runs: Array<{ startedAt: string; externalSessionId?: string; ownerScopeId: string }>;
  outcome?: string;
  note?: string;
  provision?: ProvisionMeta;
}

/** What capability curation did for a session (the record's `provision`). */
export interface ProvisionMeta {
  detected: Array<{ id: string; tier: string; evidence: string[] }>;
  applied: string[];
  ignored: Array<{ capability: string; item: string; reason: string }>;
  tiers: Record<string, string>;
  awaitingApproval: string[];
  tokenScopeNotes: string[];
}

export interface FeedEvent {
  sessionId: string;
  seq: number;
  firstSeq?: number;
  at: string;
  event: { type: string; [key: string]: unknown };
}

export interface DiffFile {
  path: string;
  status: string;
  oldPath?: string;
  insertions?: number;
  deletions?: number;
}

export interface Diff {
  files: DiffFile[];
  summaryLine?: string;
  summary?: string;
  unifiedDiff?: string;
  unified?: string;
  truncated?: boolean;
  source?: string;
}

export interface SessionDetail {
  record: SessionRecord;
  live: boolean;
  /** Ended but still held by a process (nothing to steer; Stop releases it). */
  held?: boolean;
  externalAttach?: { command: string; note?: string };
  externalAttachUnavailable?: string;
}

export interface RunRecord {
  runId: string;
  flow: string;
  status: string;
  createdAt: string;
  updatedAt: string;
  pid?: number;
  ledger: { turns: number; tokens: number; costUsd: number; wallMs: number };
  steps: Record<string, { status: string; verdict?: string }>;
  reason?: { code: string; message: string };
  parent?: { runId: string; step: string };
  summary?: { lines: string[] };
  /** Where the run lives: `local` (this machine's NEO_HOME) or `dbos` (the database's workers). */
  engine?: 'local' | 'dbos';
  /** A dbos run: the worker DBOS has it on. */
  executor?: string;
}

export interface UnitState {
  status: string;
  attempt: number;
  iteration: number;
  executions: number;
  startedAt?: string;
  endedAt?: string;
  outputs?: Record<string, unknown>;
  verdict?: string;
  error?: { code: string; message: string; hint?: string };
  units?: UnitState[];
}

export interface RunDetail {
  record: RunRecord;
  engine?: 'local' | 'dbos';
  graph: {
    nodes: Array<{ id: string; label: string; kind: string; group: string }>;
    edges: Array<{ from: string; to: string; dashed: boolean }>;
  };
  steps: Array<{
    id: string;
    name?: string;
    kind: string;
    group: string;
    needs: string[];
    backend?: string;
    /** Its backend replays a script: the costs it reports were never spent. */
    simulated?: boolean;
    approval?: { prompt: string; decisions: Decision[] };
  }>;
  state: { status: string; steps: Record<string, UnitState>; ledger: RunRecord['ledger'] } | null;
  /** The part of the cost scripted backends reported. */
  simulatedCostUsd?: number;
  seq: number;
  live: boolean;
  /** The sessions of running steps (`step`, `step[2]`), from the moment each started. */
  stepSessions?: Record<string, string>;
}

export interface Decision {
  id: string;
  label: string;
  fail: boolean;
}

export interface InboxItem {
  kind: 'flow' | 'question' | 'capability';
  runId: string;
  key: string;
  prompt: string;
  detail?: string;
  decisions: Decision[];
  live: boolean;
  flow?: string;
}
