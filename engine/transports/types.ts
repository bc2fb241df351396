import type { Backend, Effort, Posture } from '../definitions/index.js';
import type { CuratedMcp, ToolAsk } from '../posture/index.js';
import type { SandboxBind, SandboxKind } from '../execution/index.js';

/** Token counts a backend reports for a turn. */
export interface Usage {
  inputTokens?: number;
  outputTokens?: number;
  cachedInputTokens?: number;
  reasoningTokens?: number;
}

/**
 * The normalized event model every transport emits. Each adapter translates its CLI's protocol
 * into exactly these kinds; the engine never sees a wire format.
 */
export type AgentEvent =
  | { type: 'started'; externalSessionId?: string; model?: string }
  | { type: 'text'; text: string }
  | { type: 'reasoning'; text: string }
  | {
      type: 'tool_use';
      id: string;
      name: string;
      input: unknown;
      /** The files this call acts on, as the CLI named them (absolute, or relative to the session's cwd), when the adapter can read them. */
      paths?: string[];
    }
  | { type: 'tool_result'; id: string; output: string; isError: boolean }
  /** A permission ask for the driver; `ask` is the adapter's normalized reading of it. */
  | { type: 'clarify'; clarificationId: string; toolName: string; input: unknown; ask?: ToolAsk }
  /**
   * neo answered an ask itself, without the driver: the posture gate's verdict (engine/posture
   * decideAsk), or an open ask closed unanswered (`by`). The session records it as a clarification
   * answered by `posture`, `interrupt` or `cli`, so every answer is on record.
   */
  | {
      type: 'gate_decision';
      clarificationId: string;
      toolName: string;
      ask: ToolAsk;
      allow: boolean;
      reason: string;
      posture: Posture;
      /** Absent for the gate's verdict; `interrupt`: neo's interrupt cancelled the ask; `cli`: the CLI withdrew it. */
      by?: 'interrupt' | 'cli';
    }
  /**
   * What one model call inside the turn used, from a backend that reports usage while it streams
   * (neo's agent per model call, Codex's token-usage updates, an ACP agent's cost updates): a
   * delta, never a running total. The turn's `turn_complete` still carries the turn's own figures;
   * a budget counts these as they come, so a turn that crosses one can be stopped.
   */
  | { type: 'usage'; usage?: Usage; costUsd?: number }
  /** The checklist the agent keeps (neo's workflow tool), whole, after each change. */
  | { type: 'checklist'; items: ChecklistEntry[] }
  | {
      type: 'turn_complete';
      numTurns?: number;
      /** This turn's cost in USD (a per-turn delta, never a running total). */
      costUsd?: number;
      usage?: Usage;
      text?: string;
      /** The turn ended because interrupt() aborted it. */
      interrupted?: boolean;
    }
  | {
      type: 'ended';
      ok: boolean;
      text: string;
      /** When the agent closed the session at the end of a turn: that turn's ordinal and figures (per-turn, like turn_complete). */
      numTurns?: number;
      costUsd?: number;
      usage?: Usage;
    }
  | {
      type: 'error';
      message: string;
      /**
       * A notice, not a failure: the turn goes on (the CLI is retrying a 429/500 itself, neo
       * skipped a malformed line, or denied an ask the posture forbids). Without it (and without
       * `fatal`) the error ends the current turn and the session can take guidance for another.
       */
      transient?: boolean;
      /** UPPER_SNAKE error code (TRANSPORT_EXITED, TRANSPORT_IDLE_TIMEOUT, …). */
      code?: string;
      /** The session is over: the stream ends right after this event. A non-fatal error fails only the turn (or is a notice). */
      fatal?: boolean;
      /** The last lines the CLI wrote to stderr, when they explain the error. */
      stderrTail?: string;
    }
  | {
      type: 'provision';
      applied: string[];
      ignored: string[];
      /** Why the transport left each item of `ignored` out, where it can say (keyed by the item). */
      reasons?: Record<string, string>;
      /** MCP servers a client in neo's process connected (neo's own agent): each one's tools, or why it was ignored. */
      mcp?: McpServerRecord[];
    };

/** One MCP server of a session, as the record shows it. */
export type McpServerRecord =
  | {
      server: string;
      status: 'connected';
      transport: 'stdio' | 'http' | 'sse';
      /** The tools the agent was given, as the model calls them (`mcp__<server>__<tool>`). */
      tools: string[];
      /** Those the server's configuration declares read-only (posture plan lets them run). */
      readOnlyTools: string[];
      /** The server's tools the model was not given (as the server names them): a name a provider refuses, or one already taken. */
      ignoredTools?: string[];
    }
  | { server: string; status: 'ignored'; reason: string };

export type AgentEventType = AgentEvent['type'];

/** What a probe found out about a backend on this machine. Never thrown; always returned. */
export interface Availability {
  available: boolean;
  /** 'ok' | 'missing' (binary not found) | 'unauthenticated' | 'probe-failed' | 'unsupported'. */
  status: 'ok' | 'missing' | 'unauthenticated' | 'probe-failed' | 'unsupported';
  version?: string;
  binaryPath?: string;
  /** How to fix it (install command, auth hint). */
  hint?: string;
  detail?: string;
}

/** Session-scoped material a provisioning step prepared (MCP config, skills, instructions). */
export interface ProvisionPlan {
  mcpServers?: Record<string, unknown>;
  skillDirs?: string[];
  instructions?: string;
  /** Folder the plan was materialized into (under the session's store dir). */
  dir?: string;
  /** `mcpServers` written as a Claude Code MCP config file (`--mcp-config <file>`). */
  mcpConfigFile?: string;
  /** A Claude Code plugin folder whose `skills/` holds `skillDirs` (`--plugin-dir <folder>`). */
  pluginDir?: string;
  /** Environment variables the provisioned servers read (their entries' `authEnv`): kept in the CLI's environment. */
  envNames?: string[];
  /**
   * The servers of `mcpServers` that came from the capability catalog (not from the start's own
   * `--mcp-config`), with the tools their entries declare read-only: the posture gate judges
   * their tools' asks by it (engine/posture curated-mcp.ts).
   */
  curatedMcp?: CuratedMcp;
}

/** Everything a transport needs to open a session. */
export interface StartSessionOptions {
  /** neo's own session id (cs_…), for logs and store paths. */
  sessionId: string;
  cwd: string;
  brief: string;
  posture: Posture;
  /** The flattened descriptor of this backend. */
  descriptor: Backend;
  model?: string;
  effort?: Effort;
  allowedTools?: string[];
  disallowedTools?: string[];
  appendSystemPrompt?: string;
  /** The backend's own session id to resume. */
  resumeSessionId?: string;
  provision?: ProvisionPlan;
  /** Backend-specific options (e.g. the script backend's script path). */
  options?: Record<string, unknown>;
  /** Environment for a child process (already filtered; secrets by reference only). */
  env?: NodeJS.ProcessEnv;
  /** Where the transport may keep per-session files (under NEO_HOME/code-sessions/<id>/). */
  sessionDir?: string;
  /** Confine the CLI (and the commands it runs) to this sandbox; absent: the user's full rights. */
  sandbox?: SessionSandbox;
}

/** A session's sandbox: the kind and what is visible (the CLI's cwd and environment are the session's). */
export interface SessionSandbox {
  kind: SandboxKind;
  binds: SandboxBind[];
  hide: string[];
  network: boolean;
  /**
   * How many processes (threads count) the CLI and everything it starts may have at once: a
   * fork flood stops at the cap and the session ends, saying so (the flow's `maxProcesses`).
   */
  maxProcesses?: number;
  /** Set for the confined CLI and its commands (a Go/Rust workspace's lent toolchains: GOMODCACHE, CARGO_HOME, …). */
  env?: Record<string, string>;
}

/** One item of an agent's checklist. */
export interface ChecklistEntry {
  id: number;
  text: string;
  done: boolean;
}

/** A live session with one agent. */
export interface AgentSession {
  /** Normalized events, in order. Ends after `ended` or a fatal `error`. */
  readonly events: AsyncIterable<AgentEvent>;
  /** Guidance for the next turn (or mid-turn where the backend supports it), with an optional model/effort switch. */
  sendGuidance(text: string, switchTo?: { model?: string; effort?: Effort }): Promise<void>;
  /** Answers a pending clarification. */
  answer(clarificationId: string, decision: { allow: boolean; reason?: string }): Promise<void>;
  setPosture(posture: Posture): Promise<void>;
  /** Aborts the current turn; the session stays open. */
  interrupt(): Promise<void>;
  /** Ends the session; idempotent; kills the child's process group. */
  stop(): Promise<void>;
  /** Reverts the last turn's file writes (backends that track their edits: neo). */
  undo?(): Promise<{ restored: string[]; turn: number }>;
  /** Clears the conversation, keeping the session (neo). */
  reset?(): Promise<void>;
  /** The agent's checklist (neo's workflow tool). */
  checklist?(): ChecklistEntry[];
}

/** One backend's adapter. */
export interface Transport {
  /** Matches definitions/backends/<id>.yaml. */
  readonly id: string;
  /** Binary found, version, auth hint. Never throws. */
  probeAvailability(): Promise<Availability>;
  start(options: StartSessionOptions): Promise<AgentSession>;
}
