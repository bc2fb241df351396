/**
 * Which tool names edit files, only read, or run commands, across every backend neo drives —
 * the one list the posture gate, the flow's built-in rules and a persona's default rules share.
 * An adapter that knows its CLI's tool better says so in the ToolAsk it builds; these names are
 * the fallback for a bare tool name.
 */
import type { AskKind } from './ask.js';

/** Tools that change files: Claude Code, codex, ACP kinds, neo's own and the script backend's. */
export const EDIT_TOOL_NAMES: readonly string[] = [
  'Write',
  'Edit',
  'MultiEdit',
  'NotebookEdit',
  'apply_patch',
  'fileChange',
  'write_file',
  'edit_file',
  'replace',
  'create',
  'Create',
  'write',
  'edit',
  'delete',
  'rename',
  'move',
];

/** Tools that read and search, with no side effect on the workspace or the machine. */
export const READ_TOOL_NAMES: readonly string[] = [
  'Read',
  'Grep',
  'Glob',
  'LS',
  'WebFetch',
  'WebSearch',
  'TodoWrite',
  'NotebookRead',
  'ToolSearch',
  'read_file',
  'grep',
  'glob',
  'read',
  'search',
  'think',
  'fetch',
];

/** Tools that run a command. */
export const COMMAND_TOOL_NAMES: readonly string[] = [
  'Bash',
  'bash',
  'run',
  'shell',
  'exec',
  'exec_command',
  'commandExecution',
  'execute',
  'run_shell_command',
  'local_shell',
];

/**
 * What a tool does, by name: a backend descriptor's `editToolNames` and the shared edit list are
 * edits, known read-only tools are reads, anything else counts as running a command.
 */
export function classifyToolName(name: string, editToolNames: readonly string[] = []): AskKind {
  if (editToolNames.includes(name) || EDIT_TOOL_NAMES.includes(name)) return 'edit';
  if (READ_TOOL_NAMES.includes(name)) return 'read';
  return 'execute';
}

/** Whether a tool name is a known command tool (not merely unclassified). */
export function isCommandTool(name: string): boolean {
  return COMMAND_TOOL_NAMES.includes(name);
}

/** What an ACP ToolKind does (`read`, `edit`, `delete`, `move`, `search`, `execute`, `think`, `fetch`, `other`). */
export function classifyAcpKind(kind: unknown): AskKind {
  switch (kind) {
    case 'read':
    case 'search':
    case 'think':
    case 'fetch':
      return 'read';
    case 'edit':
    case 'delete':
    case 'move':
      return 'edit';
    default:
      return 'execute';
  }
}
