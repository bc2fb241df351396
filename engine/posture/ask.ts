/**
 * The one shape a permission ask has once its backend's adapter has read it. Every adapter
 * (Claude Code's can_use_tool, Codex's requestApproval, an ACP session/request_permission, the
 * script backend's actions, neo's own tools) turns its CLI's real wire shape into this, and the
 * posture rules decide on it alone — never on a tool name or a raw input they would have to guess at.
 */
export type AskKind = 'read' | 'edit' | 'execute';

export interface ToolAsk {
  /** What the call does, as far as postures care. Anything an adapter cannot classify is `execute`. */
  kind: AskKind;
  /** The tool's name as the backend spelled it (for messages and records). */
  toolName: string;
  /**
   * Every filesystem path the call reads or writes, as the backend gave it (absolute or relative to
   * the session's working directory). Empty for a command with no declared paths.
   */
  paths: string[];
  /** A command the call runs, as the backend gave it (one string, for messages and records). */
  command?: string;
  /**
   * The command as an argv list, when the backend gives one (it runs without a shell). Command
   * rules then match these words exactly; without it they read `command` as a shell line.
   */
  argv?: string[];
  /**
   * Set when the adapter could not read the ask (an unknown shape, a path under a key it does not
   * know): the ask is denied with this reason, which names the backend and the raw shape.
   */
  unreadable?: string;
  /**
   * The tool belongs to this MCP server, which neo provisioned for the session from its catalog
   * (curated-mcp.ts sets it from neo's own plan; nothing an agent says can).
   */
  curatedMcp?: string;
}
