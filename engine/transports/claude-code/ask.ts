import { askPaths, classifyToolName, type ToolAsk } from '../../posture/index.js';
import { unreadableReason } from '../shared/ask-input.js';

type Json = Record<string, unknown>;

/**
 * Claude Code's `can_use_tool` request as a {@link ToolAsk} (shapes in tests/fixtures/asks/claude-code):
 * `tool_name` and `input` as the model called the tool, `input.file_path` (Write, Edit, Read),
 * `input.notebook_path`, `input.path` (Grep, Glob), `input.command` (Bash), and `blocked_path`, the
 * path Claude Code itself found a command or a read to touch outside its working directories.
 */
export function readClaudeAsk(request: Json, editToolNames: readonly string[] | undefined): ToolAsk {
  const toolName = typeof request.tool_name === 'string' && request.tool_name !== '' ? request.tool_name : undefined;
  if (toolName === undefined)
    return {
      kind: 'execute',
      toolName: 'unknown',
      paths: [],
      unreadable: unreadableReason('claude-code', 'without naming a tool', request),
    };
  const input = request.input;
  const blocked = typeof request.blocked_path === 'string' && request.blocked_path !== '' ? [request.blocked_path] : [];
  const ask: ToolAsk = {
    kind: classifyToolName(toolName, editToolNames ?? []),
    toolName,
    paths: [...new Set([...askPaths(input), ...blocked])],
  };
  if (toolName === 'Bash') {
    const command = (input as Json | undefined)?.command;
    if (typeof command === 'string' && command.trim() !== '') ask.command = command;
    else ask.unreadable = unreadableReason('claude-code', 'to run Bash without a command string', request);
  }
  if (ask.kind === 'edit' && ask.paths.length === 0)
    ask.unreadable = unreadableReason('claude-code', `to edit with ${toolName} without naming a file`, request);
  return ask;
}
