import { askCommand, askPaths, classifyAcpKind, type AskKind, type ToolAsk } from '../../posture/index.js';
import { unreadableReason } from '../shared/ask-input.js';

type Json = Record<string, unknown>;

/** What an agent told neo about a tool call before it asked about it (its tool_call updates). */
export interface KnownToolCall {
  kind?: string | undefined;
  title?: string | undefined;
  rawInput?: unknown;
  locations?: unknown;
}

/** Where an agent's execute ask carries its command (a descriptor's `askShape.commandFrom`). */
export type CommandSource = 'rawInput' | 'title';

const SEVERITY: Record<AskKind, number> = { read: 0, edit: 1, execute: 2 };

/**
 * An ACP `session/request_permission` as a {@link ToolAsk}, from every agent's real shapes
 * (tests/fixtures/asks/<agent>): the ask's `toolCall` and the tool call it is about, as earlier
 * updates announced it. The kind is the more severe of the ask's and the tool's, an unhelpful
 * `other` aside (OpenCode asks about a write outside its folder as `other`, Copilot as `read`:
 * both are the edit they are for). Paths come from ACP's standard `locations[].path` and `diff`
 * content, and from the raw input under any key the agents use (`filepath`, `fileName` …); the
 * command from `rawInput.command`, or for an agent whose descriptor says so, the title (Gemini
 * CLI sends nothing else).
 */
export function readAcpAsk(
  backendId: string,
  toolCall: Json,
  known: KnownToolCall | undefined,
  commandFrom: CommandSource = 'rawInput',
): ToolAsk {
  const kinds = [toolCall.kind, known?.kind].filter(
    (kind): kind is string => typeof kind === 'string' && kind !== '' && kind !== 'other',
  );
  const toolName = kinds.reduce<string | undefined>(
    (worst, kind) =>
      worst === undefined || SEVERITY[classifyAcpKind(kind)] > SEVERITY[classifyAcpKind(worst)] ? kind : worst,
    undefined,
  );
  const rawInput = toolCall.rawInput ?? known?.rawInput;
  const ask: ToolAsk = {
    kind: toolName === undefined ? 'execute' : classifyAcpKind(toolName),
    toolName: toolName ?? 'other',
    paths: [
      ...new Set([
        ...locationPaths(toolCall.locations),
        ...diffPaths(toolCall.content),
        ...askPaths(toolCall.rawInput),
        ...locationPaths(known?.locations),
        ...askPaths(known?.rawInput),
      ]),
    ],
  };
  if (ask.kind === 'execute') {
    const command = askCommand(rawInput);
    if (command !== undefined) {
      if ('line' in command) ask.command = command.line;
      else [ask.argv, ask.command] = [command.argv, command.argv.join(' ')];
    } else if (commandFrom === 'title') {
      const title = typeof toolCall.title === 'string' ? toolCall.title : known?.title;
      if (title !== undefined && title.trim() !== '') ask.command = title;
    }
    if (ask.command === undefined)
      ask.unreadable = unreadableReason(
        backendId,
        toolName === undefined
          ? 'about a tool call of no known kind, naming no command'
          : 'to run a command without naming it',
        toolCall,
      );
  } else if (ask.kind === 'edit' && ask.paths.length === 0) {
    ask.unreadable = unreadableReason(backendId, `to ${toolName ?? 'edit'} without naming a file`, toolCall);
  }
  return ask;
}

function locationPaths(locations: unknown): string[] {
  if (!Array.isArray(locations)) return [];
  return locations.flatMap((l) => {
    const path = (l as Json | null)?.path;
    return typeof path === 'string' && path !== '' ? [path] : [];
  });
}

function diffPaths(content: unknown): string[] {
  if (!Array.isArray(content)) return [];
  return content.flatMap((c) => {
    const item = c as Json | null;
    return item?.type === 'diff' && typeof item.path === 'string' && item.path !== '' ? [item.path] : [];
  });
}
