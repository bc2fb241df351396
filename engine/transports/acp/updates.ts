import { askCommand, askPaths } from '../../posture/index.js';
import type { AgentEvent } from '../types.js';
import { agentNotice, type AgentNotice } from './agent-notices.js';
import { diffOutput, textOf, toolOutput } from './tool-output.js';

type Json = Record<string, unknown>;

/** What neo remembers about a tool call between its updates. */
export interface ToolInfo {
  kind: string | undefined;
  title: string | undefined;
  /** The first input that said anything (a later update may show only part of it). */
  rawInput: unknown;
  /** Every `locations[].path` the agent named for the call. */
  locations: string[];
  /** The last diffs the agent sent with the call, rendered (droid's completion says nothing more). */
  diffs: string;
  /** The agent ran the call in a terminal of its own (droid's commands): its output is there, not here. */
  inTerminal: boolean;
  announced: boolean;
  finished: boolean;
}

/** ACP tool kinds whose locations are the files the call acts on (an execute's is its cwd). */
const FILE_KINDS = new Set(['read', 'edit', 'delete', 'move']);

/**
 * Translates ACP `session/update` notifications into normalized events. Message and thought
 * chunks are streamed deltas; they are joined into one text (or reasoning) event per message,
 * flushed when something else happens or the prompt ends.
 */
export class UpdateTranslator {
  readonly tools = new Map<string, ToolInfo>();
  #buffer: { kind: 'text' | 'reasoning'; text: string; messageId: unknown } | undefined;
  #turnText = '';
  #failure: Extract<AgentNotice, { kind: 'failure' }> | undefined;
  readonly #backendId: string;
  /** The latest cumulative cost in USD, if the agent reports one. */
  costTotal: number | undefined;
  currentModeId: string | undefined;
  configOptions: Json[] | undefined;

  /** `backendId` names the agent in the notices it reports. */
  constructor(backendId = 'the agent') {
    this.#backendId = backendId;
  }

  /** Events for one update. */
  translate(update: Json): AgentEvent[] {
    const kind = update.sessionUpdate;
    if (kind === 'agent_message_chunk' || kind === 'agent_thought_chunk') {
      const text = textOf(update.content);
      if (text === '') return [];
      const wanted = kind === 'agent_message_chunk' ? 'text' : 'reasoning';
      const notice = wanted === 'text' ? agentNotice(text) : undefined;
      if (notice !== undefined) return [...this.flush(), ...this.#notice(notice)];
      const events =
        this.#buffer !== undefined && (this.#buffer.kind !== wanted || this.#buffer.messageId !== update.messageId)
          ? this.flush()
          : [];
      if (this.#buffer === undefined) this.#buffer = { kind: wanted, text: '', messageId: update.messageId };
      this.#buffer.text += text;
      return events;
    }
    const events = this.flush();
    switch (kind) {
      case 'tool_call':
        return [...events, ...this.#toolCall(update, true)];
      case 'tool_call_update':
        return [...events, ...this.#toolCall(update, false)];
      case 'plan':
        return [...events, { type: 'reasoning', text: planText(update.entries) }];
      case 'usage_update': {
        const cost = update.cost as Json | undefined;
        if (typeof cost?.amount === 'number' && (cost.currency === undefined || cost.currency === 'USD'))
          this.costTotal = cost.amount;
        return events;
      }
      case 'current_mode_update':
        if (typeof update.currentModeId === 'string') this.currentModeId = update.currentModeId;
        return events;
      case 'config_option_update':
        if (Array.isArray(update.configOptions)) this.configOptions = update.configOptions as Json[];
        return events;
      default:
        // user_message_chunk (our own prompt echoed), available_commands_update,
        // session_info_update, notices, and kinds newer than neo carry nothing a driver acts on.
        return events;
    }
  }

  /** Emits the buffered message or thought, if any. */
  flush(): AgentEvent[] {
    const buffer = this.#buffer;
    this.#buffer = undefined;
    if (buffer === undefined || buffer.text === '') return [];
    if (buffer.kind === 'text') this.#turnText = buffer.text;
    return [{ type: buffer.kind, text: buffer.text }];
  }

  /**
   * The message still being joined when the prompt failed, if it is the agent's error line
   * (`Error: …`, as droid sends right before failing the prompt): the failure says it, so it is
   * not agent text.
   */
  takePendingError(): string | undefined {
    const buffer = this.#buffer;
    if (buffer?.kind !== 'text' || !buffer.text.startsWith('Error: ')) return undefined;
    this.#buffer = undefined;
    return buffer.text.slice('Error: '.length);
  }

  /** The provider failure the agent reported as text this turn, and forget it. */
  takeFailure(): Extract<AgentNotice, { kind: 'failure' }> | undefined {
    const failure = this.#failure;
    this.#failure = undefined;
    return failure;
  }

  /** A retry is shown as it happens; a failure ends the turn when the prompt returns. */
  #notice(notice: AgentNotice): AgentEvent[] {
    if (notice.kind === 'failure') {
      this.#failure = notice;
      return [];
    }
    return [
      {
        type: 'error',
        code: 'TRANSPORT_MODEL_RETRY',
        message: `${this.#backendId} is retrying the model request: ${notice.message}`,
        transient: true,
      },
    ];
  }

  /** The last agent message of the turn, and forget it. */
  takeTurnText(): string {
    const text = this.#turnText;
    this.#turnText = '';
    return text;
  }

  /** Makes sure a tool_use was emitted for a tool call before the agent asks about it. */
  announce(toolCall: Json): AgentEvent[] {
    return this.#toolCall(toolCall, !this.tools.has(String(toolCall.toolCallId)), true).filter(
      (event) => event.type === 'tool_use',
    );
  }

  /**
   * A call is announced (tool_use) once neo knows what it is: at once when its first update says
   * which files or command, else at its next status (OpenCode sends `pending` with an empty
   * `rawInput` and the input with `in_progress`), a permission ask, or its result. Its `paths`
   * are the files it names, from the input under any agent's spelling, `locations` (file kinds)
   * and `diff` content.
   */
  #toolCall(update: Json, isNew: boolean, force = false): AgentEvent[] {
    const id = update.toolCallId;
    if (typeof id !== 'string') return [];
    const info: ToolInfo = this.tools.get(id) ?? {
      kind: undefined,
      title: undefined,
      rawInput: undefined,
      locations: [],
      diffs: '',
      inTerminal: false,
      announced: false,
      finished: false,
    };
    if (typeof update.kind === 'string') info.kind = update.kind;
    if (typeof update.title === 'string') info.title = update.title;
    if (update.rawInput !== undefined && saysNothing(info.rawInput)) info.rawInput = update.rawInput;
    for (const path of [...locationPaths(update.locations), ...diffPaths(update.content)])
      if (!info.locations.includes(path)) info.locations.push(path);
    const said = toolOutput(update);
    const diffs = diffOutput(update);
    if (diffs !== '') info.diffs = diffs;
    if (Array.isArray(update.content) && (update.content as Json[]).some((item) => item?.type === 'terminal'))
      info.inTerminal = true;
    this.tools.set(id, info);
    const events: AgentEvent[] = [];
    const ends = update.status === 'completed' || update.status === 'failed';
    const known = !saysNothing(info.rawInput) || (FILE_KINDS.has(info.kind ?? '') && info.locations.length > 0);
    const moved = update.status !== undefined && (update.status !== 'pending' || !isNew);
    if (!info.announced && (force || ends || moved || (isNew && (known || update.status === undefined))))
      events.push(this.#announce(id, info));
    if (!info.finished && ends) {
      info.finished = true;
      events.push({
        type: 'tool_result',
        id,
        output: resultText(this.#backendId, update, said, info),
        isError: update.status === 'failed',
      });
    }
    return events;
  }

  #announce(id: string, info: ToolInfo): AgentEvent {
    info.announced = true;
    const paths = [
      ...new Set([...askPaths(info.rawInput), ...(FILE_KINDS.has(info.kind ?? '') ? info.locations : [])]),
    ];
    return {
      type: 'tool_use',
      id,
      name: info.kind ?? 'other',
      input: isBlank(info.rawInput)
        ? { title: info.title, locations: info.locations.map((path) => ({ path })) }
        : info.rawInput,
      ...(paths.length === 0 ? {} : { paths }),
    };
  }

  /** Announces the calls still held when the prompt ends (the agent never said more about them). */
  settleTools(): AgentEvent[] {
    const events: AgentEvent[] = [];
    for (const [id, info] of this.tools) if (!info.announced) events.push(this.#announce(id, info));
    return events;
  }
}

/** Whether a raw input names neither a file nor a command (`{}`, `{cwd}`, nothing). */
function saysNothing(rawInput: unknown): boolean {
  if (rawInput === undefined || rawInput === null || rawInput === '') return true;
  return askPaths(rawInput).length === 0 && askCommand(rawInput) === undefined && isEmptyish(rawInput);
}

/** No input at all (Gemini sends none; OpenCode's first update an empty object). */
function isBlank(rawInput: unknown): boolean {
  if (rawInput === undefined || rawInput === null || rawInput === '') return true;
  return typeof rawInput === 'object' && Object.keys(rawInput).length === 0;
}

function isEmptyish(value: unknown): boolean {
  if (typeof value !== 'object' || value === null) return false;
  return Object.keys(value).every((key) => key === 'cwd');
}

function locationPaths(locations: unknown): string[] {
  if (!Array.isArray(locations)) return [];
  return locations
    .map((l) => (l as Json | null)?.path)
    .filter((path): path is string => typeof path === 'string' && path !== '');
}

function diffPaths(content: unknown): string[] {
  if (!Array.isArray(content)) return [];
  return (content as Json[])
    .filter((item) => item?.type === 'diff' && typeof item.path === 'string' && item.path !== '')
    .map((item) => item.path as string);
}

/**
 * A result's output: what this update says, else (for a completed call) the diffs the agent sent
 * with the call earlier (droid sends Create's diff with the call and `completed` with nothing),
 * else that it said nothing, so the record never shows an empty output as if it were one. Text
 * sent before the call ran (Gemini's description of a command in its ask) is not its output.
 */
function resultText(backendId: string, update: Json, said: string, info: ToolInfo): string {
  if (said !== '') return said;
  if (update.status === 'completed' && info.diffs !== '') return info.diffs;
  const where = info.inTerminal ? ': it ran the call in a terminal of its own' : '';
  return `(${backendId} reported the call ${String(update.status)} and sent no output${where})`;
}

function planText(entries: unknown): string {
  const list = Array.isArray(entries) ? (entries as Json[]) : [];
  return ['Plan:', ...list.map((e) => `- [${String(e.status ?? 'pending')}] ${String(e.content ?? '')}`)].join('\n');
}
