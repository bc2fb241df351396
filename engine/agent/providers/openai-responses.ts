/**
 * OpenAI Responses over SSE. Output items are keyed by `output_index`: messages stream
 * `output_text.delta`, function calls `function_call_arguments.delta`, reasoning its summary.
 * Requests are stateless (`store: false`): the whole transcript is sent each time, with reasoning
 * carried as encrypted content when the model produced it.
 */
import { streamError } from '../errors.js';
import type { ContentBlock, Message, ModelRequest, ModelResponse, StopReason, ToolSpec } from '../messages.js';
import { emptyUsage, tokenCount, type AgentUsage } from '../usage.js';
import { BlockAssembler } from './block-assembler.js';
import { OPENAI_REASONING_EFFORT } from './effort.js';
import { joinUrl, obj, openCall, parseData, readSse, str } from './http-call.js';
import { memoByIdentity } from '../../util/memo-by-identity.js';
import {
  decodeStringBody,
  JSON_FLAT_VALUE,
  JSON_INDEX,
  JSON_STRING_BODY,
  patternThenTemplate,
  sseEventPattern,
} from './fast-path.js';
import type { OpenResponse } from '../http/stream-request.js';
import type { CompleteOptions, HttpProviderConfig, Provider } from './provider.js';

export class OpenAIResponsesProvider implements Provider {
  readonly name: string;
  readonly api = 'openai-responses' as const;
  readonly #config: HttpProviderConfig;

  constructor(config: HttpProviderConfig) {
    this.#config = config;
    this.name = config.name;
  }

  async complete(request: ModelRequest, options: CompleteOptions = {}): Promise<ModelResponse> {
    const headers: Record<string, string> = {};
    if (this.#config.apiKey !== undefined) headers.authorization = `Bearer ${this.#config.apiKey.reveal()}`;
    const response = await openCall(
      this.#config,
      joinUrl(this.#config.baseUrl, 'responses'),
      headers,
      responsesBody(request),
      options.signal,
    );
    return this.#read(response, options);
  }

  async #read(response: OpenResponse, options: CompleteOptions): Promise<ModelResponse> {
    const blocks = new BlockAssembler(this.name, 'openai-responses');
    let usage = emptyUsage();
    let model: string | undefined;
    let finished: { status: string; reason: string } | undefined;
    let refusal = '';
    // The delta events, whether read by the fast path or parsed in full.
    const delta = (type: string, index: number, text: string): boolean => {
      switch (type) {
        case 'response.output_text.delta':
          blocks.text(index, text);
          options.sink?.text?.(text);
          return true;
        case 'response.refusal.delta':
          refusal += text;
          return true;
        case 'response.reasoning_summary_text.delta':
        case 'response.reasoning_text.delta':
          blocks.reasoning(index, text);
          options.sink?.reasoning?.(text);
          return true;
        case 'response.function_call_arguments.delta':
          blocks.tool(index, { args: text });
          return true;
        default:
          return false;
      }
    };
    const onEvent = (raw: string, event: string): void => {
      if (DELTA_DATA.test(raw)) {
        readDelta(raw, 0, delta);
        return;
      }
      if (isUnused(raw, event)) return;
      const data = parseData(this.name, raw, event);
      const type = str(data.type) ?? event;
      const index = typeof data.output_index === 'number' ? data.output_index : 0;
      if (delta(type, index, str(data.delta) ?? '')) return;
      switch (type) {
        case 'response.output_item.added': {
          const item = obj(data.item);
          if (item.type === 'function_call')
            blocks.tool(index, { id: str(item.call_id) ?? '', name: str(item.name) ?? '' });
          break;
        }
        case 'response.output_item.done':
          this.#itemDone(blocks, index, obj(data.item));
          break;
        case 'response.completed':
        case 'response.incomplete': {
          const body = obj(data.response);
          model = str(body.model);
          usage = responsesUsage(obj(body.usage));
          finished = {
            status: str(body.status) ?? (type === 'response.completed' ? 'completed' : 'incomplete'),
            reason: str(obj(body.incomplete_details).reason) ?? '',
          };
          break;
        }
        case 'response.failed': {
          const error = obj(obj(data.response).error);
          const code = str(error.code) ?? 'failed';
          if (code === 'context_length_exceeded') {
            finished = { status: 'failed', reason: code };
            break;
          }
          throw streamError(this.name, `response failed ${code}: ${str(error.message) ?? ''}`.trim(), {
            transient: code === 'server_error' || code === 'rate_limit_exceeded',
          });
        }
        case 'error':
          throw streamError(
            this.name,
            `stream error ${str(data.code) ?? ''}: ${str(data.message) ?? ''}`.replace(/\s+:/, ':'),
            { transient: true },
          );
        default:
          break;
      }
    };
    // `sequence_number` counts up in every event; the template takes any integer in its place.
    const fast = patternThenTemplate(
      DELTA_WIRE,
      (text, start, _end, found) =>
        readDelta(text, start, (type, index, value) => found(value, (more) => void delta(type, index, more))),
      'sequence_number',
    );
    await readSse(response, onEvent, fast);
    if (finished === undefined)
      throw streamError(this.name, 'stream ended before response.completed', { transient: true });
    const content = blocks.blocks();
    if (refusal !== '') content.push({ type: 'text', text: refusal });
    const stopReason = responsesStop(finished, refusal !== '', blocks.toolCount > 0);
    const raw = finished.reason !== '' ? `${finished.status}:${finished.reason}` : finished.status;
    return { content, stopReason, rawStopReason: raw, usage, ...(model !== undefined ? { model } : {}) };
  }

  #itemDone(blocks: BlockAssembler, index: number, item: Record<string, unknown>): void {
    if (item.type === 'function_call') {
      blocks.tool(index, { id: str(item.call_id) ?? '', name: str(item.name) ?? '' });
      const args = str(item.arguments);
      if (args !== undefined) blocks.setToolArgs(index, { json: args });
    } else if (item.type === 'reasoning') {
      const summary = Array.isArray(item.summary) ? item.summary.map((s) => str(obj(s).text) ?? '').join('\n') : '';
      if (!blocks.has(index) && summary !== '') blocks.reasoning(index, summary);
      const data: Record<string, unknown> = { summary: Array.isArray(item.summary) ? item.summary : [] };
      if (typeof item.encrypted_content === 'string') data.encrypted_content = item.encrypted_content;
      blocks.replay(index, data);
    } else if (item.type === 'message' && Array.isArray(item.content)) {
      const text = item.content.map((c) => (obj(c).type === 'output_text' ? (str(obj(c).text) ?? '') : '')).join('');
      if (text !== '') blocks.setText(index, text);
    }
  }
}

/**
 * Events the adapter reads nothing from: the `.done` events repeat, whole, text that arrived as
 * deltas (and `output_item.done` and `response.completed` say it once more), so parsing them
 * would only cost time — for a long answer, several parses of the whole text. An event is left
 * unparsed only when its `event:` name is one of these and its data opens with the same type.
 */
const UNUSED_EVENTS = new Map(
  [
    'response.created',
    'response.in_progress',
    'response.content_part.added',
    'response.content_part.done',
    'response.output_text.done',
    'response.refusal.done',
    'response.reasoning_summary_part.added',
    'response.reasoning_summary_part.done',
    'response.reasoning_summary_text.done',
    'response.reasoning_text.done',
    'response.function_call_arguments.done',
  ].map((type) => [type, `{"type":"${type}"`]),
);

function isUnused(data: string, event: string): boolean {
  const opening = UNUSED_EVENTS.get(event);
  return opening !== undefined && data.startsWith(opening);
}

/** Any other field of a delta event, as long as its value is flat. */
const OTHER_FIELDS = `(?:,"(?!(?:type|output_index|delta)")[a-z_]+":${JSON_FLAT_VALUE})*`;

/**
 * The hot path: a delta event is one flat object —
 * `{"type":"response.output_text.delta","sequence_number":7,"item_id":"msg_…","output_index":0,
 * "content_index":0,"delta":"…"}`, with more scalar fields at times (`logprobs`, `obfuscation`).
 * Matched as a whole (its type, `output_index` before `delta`, each once, every other field flat)
 * and only the text decoded, it costs a fraction of a full parse; anything else takes the full
 * parse.
 */
const DELTA_TYPES = [
  'response.output_text.delta',
  'response.function_call_arguments.delta',
  'response.reasoning_summary_text.delta',
  'response.reasoning_text.delta',
  'response.refusal.delta',
] as const;
const DELTA_JSON =
  `\\{"type":"(?:${DELTA_TYPES.map((t) => t.replaceAll('.', '\\.')).join('|')})"` +
  `${OTHER_FIELDS},"output_index":${JSON_INDEX}${OTHER_FIELDS},"delta":"${JSON_STRING_BODY}"${OTHER_FIELDS}\\}`;
const DELTA_DATA = new RegExp(`^${DELTA_JSON}$`);
/** The same, read straight from the stream (see SseFastPath). */
const DELTA_WIRE = sseEventPattern(DELTA_JSON);

/** The delta an event's data holds, when it is in the hot shape. Exported for tests. */
export function fastResponsesDelta(data: string): { type: string; index: number; text: string } | undefined {
  let out: { type: string; index: number; text: string } | undefined;
  if (DELTA_DATA.test(data)) readDelta(data, 0, (type, index, text) => void (out = { type, index, text }));
  return out;
}

/** The delta types by the length of their name, which tells them apart (checked here). */
const TYPES_BY_LENGTH = new Map(DELTA_TYPES.map((type) => [type.length, type]));
if (TYPES_BY_LENGTH.size !== DELTA_TYPES.length) throw new Error('two delta types share a length');

/**
 * Reads the delta out of event data at `text[start]` that the pattern has matched, by position,
 * so no match array (with its captured strings) is made for every event of a reply. In a matched
 * event the keys below occur once each, outside any string (a quote inside a string is escaped),
 * so plain searches find them.
 */
function readDelta(text: string, start: number, apply: (type: string, index: number, text: string) => void): void {
  const typeStart = start + '{"type":"'.length;
  const type = TYPES_BY_LENGTH.get(text.indexOf('"', typeStart) - typeStart)!;
  let at = text.indexOf(',"output_index":', start) + ',"output_index":'.length;
  let index = 0;
  for (let c = text.charCodeAt(at); c >= 48 && c <= 57; c = text.charCodeAt(++at)) index = index * 10 + (c - 48);
  const body = text.indexOf(',"delta":"', start) + ',"delta":"'.length;
  let end = body;
  for (let c = text.charCodeAt(end); c !== 34; c = text.charCodeAt(++end)) if (c === 92) end++;
  apply(type, index, decodeStringBody(text.slice(body, end)));
}

function responsesStop(finished: { status: string; reason: string }, refused: boolean, hasTools: boolean): StopReason {
  if (finished.reason === 'context_length_exceeded') return 'context_window_exceeded';
  if (refused || finished.reason === 'content_filter') return 'refusal';
  if (finished.status === 'incomplete') return finished.reason === 'max_output_tokens' ? 'max_tokens' : 'unknown';
  if (finished.status !== 'completed') return 'unknown';
  return hasTools ? 'tool_use' : 'end_turn';
}

function responsesUsage(u: Record<string, unknown>): AgentUsage {
  return {
    inputTokens: tokenCount(u.input_tokens),
    outputTokens: tokenCount(u.output_tokens),
    cachedInputTokens: tokenCount(obj(u.input_tokens_details).cached_tokens),
    reasoningTokens: tokenCount(obj(u.output_tokens_details).reasoning_tokens),
  };
}

/** The request body. Exported for wire-format tests. */
export function responsesBody(request: ModelRequest): Record<string, unknown> {
  const body: Record<string, unknown> = {
    model: request.model,
    input: request.messages.flatMap(toItems),
    stream: true,
    store: false,
    max_output_tokens: request.maxOutputTokens,
  };
  if (request.system !== '') body.instructions = request.system;
  if (request.tools.length > 0) {
    body.tools = wireTools(request.tools);
    body.tool_choice = 'auto';
  }
  if (request.effort !== undefined) {
    body.reasoning = { effort: OPENAI_REASONING_EFFORT[request.effort], summary: 'auto' };
    body.include = ['reasoning.encrypted_content'];
  }
  return body;
}

const wireTools = memoByIdentity((tools: readonly ToolSpec[]) =>
  tools.map((t) => ({
    type: 'function',
    name: t.name,
    description: t.description,
    parameters: t.inputSchema,
    strict: false,
  })),
);

function toItems(message: Message): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [];
  for (const block of message.content) out.push(...blockToItems(message.role, block));
  return out;
}

function blockToItems(role: Message['role'], block: ContentBlock): Record<string, unknown>[] {
  switch (block.type) {
    case 'text':
      if (block.text === '') return [];
      return role === 'user'
        ? [{ role: 'user', content: [{ type: 'input_text', text: block.text }] }]
        : [{ role: 'assistant', content: [{ type: 'output_text', text: block.text }] }];
    case 'reasoning': {
      if (block.replay?.api !== 'openai-responses' || typeof block.replay.data.encrypted_content !== 'string')
        return [];
      return [
        {
          type: 'reasoning',
          summary: block.replay.data.summary ?? [],
          encrypted_content: block.replay.data.encrypted_content,
        },
      ];
    }
    case 'tool_use':
      return [
        {
          type: 'function_call',
          call_id: block.id,
          name: block.name,
          arguments: typeof block.input === 'string' ? block.input : JSON.stringify(block.input ?? {}),
        },
      ];
    case 'tool_result':
      return [{ type: 'function_call_output', call_id: block.toolUseId, output: block.content }];
  }
}
