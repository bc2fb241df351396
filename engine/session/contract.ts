/**
 * The code-session op contract (seed 004 §1): one op-discriminated tool, its inputs, its outputs
 * and the closed read-turn union. Pure types; parsing lives in parse-input.ts.
 */
import type { Backend, Effort, Posture } from '../definitions/index.js';
import type { ToolAsk } from '../posture/index.js';
import type { Availability, SessionSandbox } from '../transports/index.js';
import type { RoundHistory } from './round-history.js';

/** Every op name, in the order the seed lists them. */
export const OPS = [
  'start',
  'read-turn',
  'answer',
  'guide',
  'set-posture',
  'interrupt',
  'stop',
  'list-backends',
  'undo',
  'reset',
  'checklist',
  'list-sessions',
] as const;
export type CodeSessionOpName = (typeof OPS)[number];

/** The driver's verdict on a session it stops (string-identical to the learning record's outcome). */
export const STOP_OUTCOMES = ['success', 'partial', 'failed', 'aborted'] as const;
export type StopOutcome = (typeof STOP_OUTCOMES)[number];

export interface StartInput {
  op: 'start';
  brief: string;
  maxPosture?: Posture;
  initialPosture?: Posture;
  backend?: string;
  cwd?: string;
  /** A concrete model id or a class sentinel (cheap | standard | frontier). */
  agentModel?: string;
  effort?: Effort;
  maxRounds?: number;
  allowedTools?: string[];
  appendSystemPrompt?: string;
  /** The backend's own session id to resume. */
  resumeSessionId?: string;
  taskTags?: string[];
  /** Backend-specific start options (the script backend reads `script`, an absolute path). */
  backendOptions?: Record<string, unknown>;
  /** Confine the agent's CLI to this sandbox (a flow step's `sandbox:` arrives here). */
  sandbox?: SessionSandbox;
  /**
   * MCP servers for this session, by name (persona `mcpServers` shape). They name programs to
   * run, so only the owner sets them (`neo session start --mcp-config`); a driver model cannot.
   */
  mcpServers?: Record<string, unknown>;
}

export interface ReadTurnInput {
  op: 'read-turn';
  sessionId: string;
  includeDiff?: boolean;
}

export interface AnswerInput {
  op: 'answer';
  sessionId: string;
  clarificationId: string;
  allow: boolean;
  reason?: string;
  note?: string;
}

export interface GuideInput {
  op: 'guide';
  sessionId: string;
  text: string;
  agentModel?: string;
  effort?: Effort;
}

export interface SetPostureInput {
  op: 'set-posture';
  sessionId: string;
  posture: Posture;
}

export interface InterruptInput {
  op: 'interrupt';
  sessionId: string;
}

export interface StopInput {
  op: 'stop';
  sessionId: string;
  outcome?: StopOutcome;
  note?: string;
}

export interface ListBackendsInput {
  op: 'list-backends';
}

/** Reverts the last turn's file writes (backends that track their edits: neo). */
export interface UndoInput {
  op: 'undo';
  sessionId: string;
}

/** Clears the agent's conversation; the session stays open (neo). */
export interface ResetInput {
  op: 'reset';
  sessionId: string;
}

/** The checklist the agent keeps (neo's workflow tool). */
export interface ChecklistInput {
  op: 'checklist';
  sessionId: string;
}

/** The sessions recorded for a working directory (and backend), newest first: the ones to continue. */
export interface ListSessionsInput {
  op: 'list-sessions';
  cwd?: string;
  backend?: string;
  limit?: number;
}

export type CodeSessionInput =
  | StartInput
  | ReadTurnInput
  | AnswerInput
  | GuideInput
  | SetPostureInput
  | InterruptInput
  | StopInput
  | ListBackendsInput
  | UndoInput
  | ResetInput
  | ChecklistInput
  | ListSessionsInput;

/** One changed file of a turn. */
export interface TurnDiffFile {
  path: string;
  status: 'A' | 'M' | 'D' | 'R';
  /** For a rename: where the file came from. */
  oldPath?: string;
  insertions?: number;
  deletions?: number;
}

/**
 * What a turn changed. The file list and the summary line are always present; the unified diff
 * only when the reader asked for it (includeDiff), capped at 64 KB.
 */
export interface TurnDiff {
  source: 'git' | 'tool-events' | 'none';
  files: TurnDiffFile[];
  summaryLine: string;
  unifiedDiff?: string;
  truncated?: boolean;
}

/** The closed read-turn union: exactly one of five kinds. */
export type ReadTurnResult =
  | {
      kind: 'turn_complete';
      actions: string[];
      text: string;
      roundHistory: RoundHistory;
      numTurns?: number;
      costUsd?: number;
      turnDiff?: TurnDiff;
    }
  /** A permission ask for the driver; `ask` is the transport's normalized reading (kind, paths, command). */
  | { kind: 'clarification'; clarificationId: string; toolName: string; input: unknown; ask?: ToolAsk }
  | { kind: 'ended'; ok: boolean; text: string; turnDiff?: TurnDiff }
  /**
   * A transport or agent failure; `code` is the transport's (TRANSPORT_UNAUTHENTICATED …) when
   * it gave one, `stalled` marks an idle timeout (never a success).
   */
  | { kind: 'error'; message: string; code?: string; stalled?: true; transient?: boolean; turnDiff?: TurnDiff }
  | { kind: 'max_rounds'; ok: true; text: string; rounds: number; turnDiff?: TurnDiff };

export type ReadTurnKind = ReadTurnResult['kind'];

export interface StartResult {
  sessionId: string;
  backend: string;
  posture: Posture;
  maxPosture: Posture;
  maxRounds: number;
}

export interface AnswerResult {
  ok: true;
  clarification: { clarificationId: string; toolName: string; allow: boolean; reason?: string };
}

export interface GuideResult {
  ok: true;
}

export interface SetPostureResult {
  ok: true;
  posture: Posture;
}

export interface InterruptResult {
  ok: true;
}

export interface StopResult {
  ok: true;
  alreadyStopped: boolean;
}

/** The flattened capability descriptor a driver reads to pick a backend. */
export type BackendDescriptorView = Omit<Backend, 'id' | 'command' | 'env' | 'pricing'> & {
  id: string;
  /** The postures this backend can express, least permissive first. */
  postures: Posture[];
};

/** One backend in list-backends. */
export interface BackendListing {
  id: string;
  descriptor: BackendDescriptorView;
  availability: Availability;
  /** Short lines from past outcomes; absent when the backend has no history. */
  trackRecord?: string[];
  /** Advisory model/effort routing lines. */
  routingGuidance?: string[];
}

export interface ListBackendsResult {
  backends: BackendListing[];
}

export interface UndoResult {
  ok: true;
  /** Workspace-relative files put back as they were before the turn. */
  restored: string[];
  /** The agent's turn that was undone (1 = its first in this run). */
  turn: number;
}

export interface ResetResult {
  ok: true;
}

export interface ChecklistResult {
  items: Array<{ id: number; text: string; done: boolean }>;
}

/** One recorded session in list-sessions. */
export interface SessionListing {
  sessionId: string;
  backend: string;
  cwd: string;
  status: string;
  createdAt: string;
  updatedAt: string;
  brief: string;
  rounds: number;
  /** Whether the session is live in this service (continue it with guide), else resume it with start. */
  live: boolean;
  /** What `start` takes as resumeSessionId to continue this conversation, when the backend recorded one. */
  resumeSessionId?: string;
}

export interface ListSessionsResult {
  sessions: SessionListing[];
}

/** The output of each op. */
export interface CodeSessionOutputs {
  start: StartResult;
  'read-turn': ReadTurnResult;
  answer: AnswerResult;
  guide: GuideResult;
  'set-posture': SetPostureResult;
  interrupt: InterruptResult;
  stop: StopResult;
  'list-backends': ListBackendsResult;
  undo: UndoResult;
  reset: ResetResult;
  checklist: ChecklistResult;
  'list-sessions': ListSessionsResult;
}

export type CodeSessionOpResult = CodeSessionOutputs[CodeSessionOpName];

/** Who is calling: the ownership scope (a persona dispatch, the CLI's owner scope). */
export interface CallerContext {
  scope: string;
}

/**
 * Limits a persona's dispatch registers for its scope before its first start (seed 004 §3):
 * explicit requests above them are rejected, omitted ones clamped.
 */
export interface ScopeConstraints {
  maxPosture?: Posture;
  backend?: string;
  maxRounds?: number;
  allowedTools?: string[];
  /** One-shot: the scope's next start adopts this record instead of minting a new one. */
  adoptRecordId?: string;
  /**
   * The scope's owner records its sessions' outcomes itself (a persona, with its verdict and
   * reasons), so the service's release hook leaves them alone.
   */
  ownOutcomes?: boolean;
}
