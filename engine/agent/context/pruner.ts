/**
 * The context pruner (seed 002 pruner.go, "park stale blocks"). Before each model call it hands
 * the provider a view of the transcript in which stale tool results are parked: their content is
 * replaced by a one-line stub naming the call, and the model can ask for it back with the
 * `restore_context` tool. The transcript itself is never changed, so a resumed session, undo and
 * compaction all see every result verbatim; only what is sent shrinks.
 *
 * Stale means: not among the `keepRecent` most recent tool results, or a file read that a later
 * read or write of the same file superseded. Short results (under `minChars`) are never parked:
 * the stub would save nothing. Compaction is the other tool: it summarises whole turns once the
 * transcript passes a threshold and costs a model call; the pruner costs none and runs every call.
 */
import type { ContentBlock, Message, ToolResultBlock } from '../messages.js';
import type { AgentTool } from '../tool.js';
import { requireString } from '../tool.js';
import type { PrunerSettings } from '../settings/agent-settings.js';

export const RESTORE_TOOL = 'restore_context';

/** Tools whose results describe a file by its `path` input (a later one supersedes an earlier read). */
const FILE_TOOLS = new Set(['read_file', 'write_file', 'edit']);

export class ContextPruner {
  readonly #keepRecent: number;
  readonly #minChars: number;
  /** Parked content by tool_use id, from the latest pass (what restore_context can return). */
  #parked = new Map<string, { name: string; content: string }>();
  /** How many results the last pass parked (for events and tests). */
  lastParked = 0;

  constructor(settings: PrunerSettings) {
    this.#keepRecent = settings.keepRecent;
    this.#minChars = settings.minChars;
  }

  /**
   * The messages to send: the same array when nothing is stale, else a copy in which only the
   * parked blocks (and the messages holding them) are new objects.
   */
  view(messages: readonly Message[]): readonly Message[] {
    const stale = this.#staleIds(messages);
    this.lastParked = stale.size;
    if (stale.size === 0) return messages;
    const out: Message[] = new Array<Message>(messages.length);
    for (let i = 0; i < messages.length; i++) {
      const message = messages[i]!;
      if (message.role !== 'user' || !message.content.some((b) => b.type === 'tool_result' && stale.has(b.toolUseId))) {
        out[i] = message;
        continue;
      }
      out[i] = { ...message, content: message.content.map((b) => this.#park(b, stale)) };
    }
    return out;
  }

  /** The content parked under a tool_use id, or undefined. */
  restore(id: string): { name: string; content: string } | undefined {
    return this.#parked.get(id);
  }

  #park(block: ContentBlock, stale: ReadonlySet<string>): ContentBlock {
    if (block.type !== 'tool_result' || !stale.has(block.toolUseId)) return block;
    this.#parked.set(block.toolUseId, { name: block.name, content: block.content });
    return { ...block, content: stub(block) };
  }

  #staleIds(messages: readonly Message[]): Set<string> {
    const stale = new Set<string>();
    // Walk newest first: the first keepRecent results seen are kept; a read whose file was seen
    // again later (read, written or edited) is stale whatever its age.
    const pathOf = new Map<string, string>();
    for (const message of messages)
      if (message.role === 'assistant')
        for (const block of message.content)
          if (block.type === 'tool_use' && FILE_TOOLS.has(block.name)) {
            const path = (block.input as { path?: unknown } | null)?.path;
            if (typeof path === 'string') pathOf.set(block.id, path);
          }
    const seenPaths = new Set<string>();
    let recent = 0;
    for (let i = messages.length - 1; i >= 0; i--) {
      const message = messages[i]!;
      if (message.role !== 'user') continue;
      for (let j = message.content.length - 1; j >= 0; j--) {
        const block = message.content[j]!;
        if (block.type !== 'tool_result') continue;
        const path = pathOf.get(block.toolUseId);
        const superseded = path !== undefined && block.name === 'read_file' && seenPaths.has(path);
        if (path !== undefined) seenPaths.add(path);
        recent++;
        if ((recent > this.#keepRecent || superseded) && parkable(block, this.#minChars)) stale.add(block.toolUseId);
      }
    }
    return stale;
  }
}

function parkable(block: ToolResultBlock, minChars: number): boolean {
  return block.content.length >= minChars && !block.content.startsWith('[parked');
}

function stub(block: ToolResultBlock): string {
  return `[parked: this ${block.name} result (${block.content.length} chars) is out of the context; call ${RESTORE_TOOL} with {"id":"${block.toolUseId}"} to see it again]`;
}

/** The tool the model asks for a parked result with. */
export function restoreContextTool(pruner: ContextPruner): AgentTool {
  return {
    effect: 'read',
    spec: {
      name: RESTORE_TOOL,
      description:
        'Returns a tool result that was parked out of the context (its stub names the id). Use it only when you need that output again.',
      inputSchema: {
        type: 'object',
        properties: { id: { type: 'string', description: 'The id the parked stub names.' } },
        required: ['id'],
      },
    },
    async run(input) {
      const id = requireString(input, 'id');
      const parked = pruner.restore(id);
      if (parked === undefined) return { output: `nothing is parked under "${id}"`, isError: true };
      return { output: parked.content, isError: false };
    },
  };
}
