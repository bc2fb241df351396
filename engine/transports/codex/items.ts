import type { AgentEvent } from '../types.js';

type Json = Record<string, unknown>;

/**
 * The tool_use neo reports for a Codex ThreadItem that is a tool call (name, input, and the
 * files a fileChange touches: each change's absolute `path`, and a move's `move_path`), else undefined.
 */
export function toolUseOf(item: Json): Extract<AgentEvent, { type: 'tool_use' }> | undefined {
  const tool = toolOf(item);
  if (tool === undefined || typeof item.id !== 'string') return undefined;
  const paths = item.type === 'fileChange' ? changedPaths(item.changes) : [];
  return {
    type: 'tool_use',
    id: item.id,
    name: tool.name,
    input: tool.input,
    ...(paths.length === 0 ? {} : { paths }),
  };
}

function changedPaths(changes: unknown): string[] {
  const paths: string[] = [];
  for (const change of Array.isArray(changes) ? (changes as Json[]) : []) {
    if (typeof change?.path === 'string') paths.push(change.path);
    const moved = (change?.kind as Json | undefined)?.move_path;
    if (typeof moved === 'string') paths.push(moved);
  }
  return [...new Set(paths)];
}

/** The tool name and input neo reports for a Codex ThreadItem that is a tool call, else undefined. */
export function toolOf(item: Json): { name: string; input: unknown } | undefined {
  switch (item.type) {
    case 'commandExecution':
      return { name: 'commandExecution', input: { command: item.command, cwd: item.cwd } };
    case 'fileChange': {
      // A single-file change also names its `path`, which diff capture outside git reads.
      const changes = Array.isArray(item.changes) ? (item.changes as Json[]) : [];
      const only = changes.length === 1 && typeof changes[0]?.path === 'string' ? { path: changes[0].path } : {};
      return { name: 'fileChange', input: { ...only, changes: item.changes } };
    }
    case 'mcpToolCall':
      return { name: `mcp__${String(item.server)}__${String(item.tool)}`, input: item.arguments ?? {} };
    case 'dynamicToolCall':
      return { name: typeof item.tool === 'string' ? item.tool : 'dynamicToolCall', input: item.arguments ?? {} };
    case 'webSearch':
      return { name: 'webSearch', input: { query: item.query } };
    default:
      return undefined;
  }
}

/** Events for an `item/completed` notification (tool_use is emitted at item/started). */
export function completedItemEvents(item: Json): AgentEvent[] {
  const id = typeof item.id === 'string' ? item.id : '';
  switch (item.type) {
    case 'agentMessage':
      return typeof item.text === 'string' && item.text !== '' ? [{ type: 'text', text: item.text }] : [];
    case 'plan':
      return typeof item.text === 'string' && item.text !== '' ? [{ type: 'text', text: item.text }] : [];
    case 'reasoning': {
      const parts = [...strings(item.summary), ...strings(item.content)];
      return parts.length > 0 ? [{ type: 'reasoning', text: parts.join('\n') }] : [];
    }
    case 'commandExecution':
      return [
        {
          type: 'tool_result',
          id,
          output: typeof item.aggregatedOutput === 'string' ? item.aggregatedOutput : '',
          isError: item.status !== 'completed' || (typeof item.exitCode === 'number' && item.exitCode !== 0),
        },
      ];
    case 'fileChange':
      return [
        {
          type: 'tool_result',
          id,
          output: describeChanges(item.changes, item.status),
          isError: item.status !== 'completed',
        },
      ];
    case 'mcpToolCall':
    case 'dynamicToolCall':
      return [
        {
          type: 'tool_result',
          id,
          output:
            item.error !== undefined && item.error !== null
              ? JSON.stringify(item.error)
              : JSON.stringify(item.result ?? item.contentItems ?? null),
          isError: item.status === 'failed' || (item.error !== undefined && item.error !== null),
        },
      ];
    case 'webSearch':
      return [{ type: 'tool_result', id, output: '', isError: false }];
    default:
      return [];
  }
}

function describeChanges(changes: unknown, status: unknown): string {
  const list = Array.isArray(changes) ? changes : [];
  const lines = list.map((change) => {
    const c = change as Json;
    const kind = typeof c.kind === 'object' && c.kind !== null ? (c.kind as Json).type : c.kind;
    return `${String(kind ?? 'update')} ${String(c.path ?? '?')}`;
  });
  return `${String(status ?? 'completed')}: ${lines.join(', ') || 'no changes'}`;
}

function strings(value: unknown): string[] {
  if (!Array.isArray(value)) return [];
  return value
    .map((part) =>
      typeof part === 'string' ? part : typeof (part as Json)?.text === 'string' ? String((part as Json).text) : '',
    )
    .filter((s) => s !== '');
}
