/**
 * Anthropic Messages over SSE. Blocks stream as content_block_start / _delta / _stop keyed by
 * index; tool input arrives as `input_json_delta` fragments; thinking comes with a signature that
 * must be replayed verbatim on the next request.
 */
import { streamError } from '../errors.js';
import type { ContentBlock, Message, ModelRequest, ModelResponse, StopReason, ToolSpec } from '../messages.js';
import { mergeRoles } from '../messages.js';
import { emptyUsage, tokenCount } from '../usage.js';
import { BlockAssembler } from './block-assembler.js';
import { ANTHROPIC_THINKING_BUDGET } from './effort.js';
import { decodeStringBody, JSON_INDEX, JSON_STRING_BODY, patternThenTemplate, sseEventPattern } from './fast-path.js';
import { joinUrl, obj, openCall, parseData, readSse, str } from './http-call.js';
import { memoByIdentity } from '../../util/memo-by-identity.js';
import type { OpenResponse } from '../http/stream-request.js';
import type { CompleteOptions, HttpProviderConfig, Provider } from './provider.js';

const STOP_REASONS: Record<string, StopReason> = {
  end_turn: 'end_turn',
  stop_sequence: 'end_turn',
  tool_use: 'tool_use',
  max_tokens: 'max_tokens',
  pause_turn: 'pause_turn',
  refusal: 'refusal',
  model_context_window_exceeded: 'context_window_exceeded',
};

export class AnthropicProvider implements Provider {
  readonly name: string;
  readonly api = 'anthropic' as const;
  readonly #config: HttpProviderConfig;

  constructor(config: HttpProviderConfig) {
    this.#config = config;
    this.name = config.name;
  }

  async complete(request: ModelRequest, options: CompleteOptions = {}): Promise<ModelResponse> {
    const base = this.#config.baseUrl;
    const url = joinUrl(base, /\/v1\/?$/.test(base) ? 'messages' : 'v1/messages');
    const headers: Record<string, string> = { 'anthropic-version': '2023-06-01' };
    if (this.#config.apiKey !== undefined) headers['x-api-key'] = this.#config.apiKey.reveal();
    const response = await openCall(this.#config, url, headers, anthropicBody(request), options.signal);
    return this.#read(response, options);
  }

  async #read(response: OpenResponse, options: CompleteOptions): Promise<ModelResponse> {
    const blocks = new BlockAssembler(this.name, 'anthropic');
    const usage = emptyUsage();
    let rawStop = '';
    let model: string | undefined;
    let stopped = false;
    const delta = (index: number, kind: AnthropicDeltaKind, text: string): void => {
      if (kind === 'text') {
        blocks.text(index, text);
        options.sink?.text?.(text);
      } else if (kind === 'thinking') {
        blocks.reasoning(index, text);
        options.sink?.reasoning?.(text);
      } else {
        blocks.tool(index, { args: text });
      }
    };
    const onEvent = (raw: string, event: string): void => {
      if (DELTA_DATA.test(raw)) return readDelta(raw, 0, raw.length, delta);
      // Events that say nothing but their type, recognised by their exact text.
      if (raw === PING || BLOCK_STOP.test(raw)) return;
      if (raw === MESSAGE_STOP) {
        stopped = true;
        return;
      }
      const data = parseData(this.name, raw, event);
      const type = str(data.type) ?? event;
      const index = typeof data.index === 'number' ? data.index : 0;
      if (type === 'message_start') {
        const message = obj(data.message);
        model = str(message.model);
        const u = obj(message.usage);
        usage.cachedInputTokens = tokenCount(u.cache_read_input_tokens);
        usage.inputTokens =
          tokenCount(u.input_tokens) + tokenCount(u.cache_creation_input_tokens) + usage.cachedInputTokens;
        usage.outputTokens = tokenCount(u.output_tokens);
      } else if (type === 'content_block_start') {
        const block = obj(data.content_block);
        const kind = str(block.type);
        if (kind === 'text') blocks.text(index, str(block.text) ?? '');
        else if (kind === 'tool_use' || kind === 'server_tool_use')
          blocks.tool(index, { id: str(block.id) ?? '', name: str(block.name) ?? '' });
        else if (kind === 'thinking') blocks.reasoning(index, str(block.thinking) ?? '');
        else if (kind === 'redacted_thinking') blocks.replay(index, { redacted: str(block.data) ?? '' });
      } else if (type === 'content_block_delta') {
        const fragment = obj(data.delta);
        const kind = str(fragment.type);
        if (kind === 'text_delta') delta(index, 'text', str(fragment.text) ?? '');
        else if (kind === 'input_json_delta') delta(index, 'json', str(fragment.partial_json) ?? '');
        else if (kind === 'thinking_delta') delta(index, 'thinking', str(fragment.thinking) ?? '');
        else if (kind === 'signature_delta') blocks.replay(index, { signature: str(fragment.signature) ?? '' });
      } else if (type === 'message_delta') {
        rawStop = str(obj(data.delta).stop_reason) ?? rawStop;
        const u = obj(data.usage);
        if (u.output_tokens !== undefined) usage.outputTokens = tokenCount(u.output_tokens);
      } else if (type === 'message_stop') {
        stopped = true;
      } else if (type === 'error') {
        const error = obj(data.error);
        const kind = str(error.type) ?? 'error';
        throw streamError(this.name, `stream error ${kind}: ${str(error.message) ?? ''}`.trim(), {
          transient: kind === 'overloaded_error' || kind === 'api_error',
        });
      }
    };
    const fast = patternThenTemplate(DELTA_WIRE, (text, start, end, found) =>
      readDelta(text, start, end, (index, kind, value) => found(value, (more) => delta(index, kind, more))),
    );
    await readSse(response, onEvent, fast);
    if (!stopped) throw streamError(this.name, 'stream ended before message_stop', { transient: true });
    const content = blocks.blocks();
    const stopReason = STOP_REASONS[rawStop] ?? 'unknown';
    return { content, stopReason, rawStopReason: rawStop, usage, ...(model !== undefined ? { model } : {}) };
  }
}

/** A delta's kind: the block fragment it carries. */
export type AnthropicDeltaKind = 'text' | 'thinking' | 'json';

/**
 * The hot path: nearly every event of a reply is a text (or thinking, or tool-input) delta in
 * exactly this shape. Matching the shape and decoding only the string costs a fraction of parsing
 * the whole event; anything that differs in the least (another field, field order, whitespace)
 * takes the full parse.
 */
const DELTA_JSON =
  `\\{"type":"content_block_delta","index":${JSON_INDEX},"delta":\\{"type":"` +
  `(?:text_delta","text":"${JSON_STRING_BODY}|thinking_delta","thinking":"${JSON_STRING_BODY}|input_json_delta","partial_json":"${JSON_STRING_BODY})` +
  `"\\}\\}`;
const DELTA_DATA = new RegExp(`^${DELTA_JSON}$`);
/** The same, read straight from the stream (see SseFastPath). */
const DELTA_WIRE = sseEventPattern(DELTA_JSON);

const PING = '{"type":"ping"}';
const MESSAGE_STOP = '{"type":"message_stop"}';
const BLOCK_STOP = new RegExp(`^\\{"type":"content_block_stop","index":${JSON_INDEX}\\}$`);

type DeltaSink = (index: number, kind: AnthropicDeltaKind, text: string) => void;

const HEAD = '{"type":"content_block_delta","index":';
const MID = ',"delta":{"type":"';
const TEXT_HEAD = 'text_delta","text":"';
const THINKING_HEAD = 'thinking_delta","thinking":"';
const JSON_HEAD = 'input_json_delta","partial_json":"';
const TAIL = '"}}';

/**
 * Reads the delta out of event data `text[start, end)` that the pattern has matched, by position:
 * the pattern fixes every character around the index and the string, so no match array (with
 * its captured strings) need be made for every event of a reply.
 */
function readDelta(text: string, start: number, end: number, apply: DeltaSink): void {
  let at = start + HEAD.length;
  let index = 0;
  for (let c = text.charCodeAt(at); c >= 48 && c <= 57; c = text.charCodeAt(++at)) index = index * 10 + (c - 48);
  at += MID.length;
  const kind: AnthropicDeltaKind =
    text.charCodeAt(at) === 105 ? 'json' : text.charCodeAt(at + 1) === 101 ? 'text' : 'thinking';
  at += kind === 'text' ? TEXT_HEAD.length : kind === 'thinking' ? THINKING_HEAD.length : JSON_HEAD.length;
  apply(index, kind, decodeStringBody(text.slice(at, end - TAIL.length)));
}

/** The delta an event's data holds, when it is in the hot shape. */
export function fastDelta(data: string): { index: number; kind: AnthropicDeltaKind; text: string } | undefined {
  let out: { index: number; kind: AnthropicDeltaKind; text: string } | undefined;
  if (DELTA_DATA.test(data)) readDelta(data, 0, data.length, (index, kind, text) => (out = { index, kind, text }));
  return out;
}

/** The request body. Exported for wire-format tests. */
export function anthropicBody(request: ModelRequest): Record<string, unknown> {
  const body: Record<string, unknown> = {
    model: request.model,
    max_tokens: request.maxOutputTokens,
    stream: true,
    messages: mergeRoles(request.messages).map(toWire),
  };
  if (request.system !== '') body.system = [{ type: 'text', text: request.system }];
  if (request.tools.length > 0) body.tools = wireTools(request.tools);
  if (request.effort !== undefined) {
    const budget = ANTHROPIC_THINKING_BUDGET[request.effort];
    body.thinking = { type: 'enabled', budget_tokens: budget };
    // max_tokens must exceed the thinking budget, or the API rejects the request.
    body.max_tokens = Math.max(request.maxOutputTokens, budget + 4096);
  }
  return body;
}

const wireTools = memoByIdentity((tools: readonly ToolSpec[]) =>
  tools.map((t) => ({ name: t.name, description: t.description, input_schema: t.inputSchema })),
);

function toWire(message: Message): Record<string, unknown> {
  const content = message.content.flatMap(blockToWire);
  if (content.length === 0) content.push({ type: 'text', text: '(empty)' });
  return { role: message.role, content };
}

function blockToWire(block: ContentBlock): Record<string, unknown>[] {
  switch (block.type) {
    case 'text':
      return block.text === '' ? [] : [{ type: 'text', text: block.text }];
    case 'reasoning': {
      // Thinking goes back only to the API that signed it.
      if (block.replay?.api !== 'anthropic') return [];
      const { redacted, signature } = block.replay.data;
      if (typeof redacted === 'string') return [{ type: 'redacted_thinking', data: redacted }];
      return [{ type: 'thinking', thinking: block.text, signature: typeof signature === 'string' ? signature : '' }];
    }
    case 'tool_use':
      return [{ type: 'tool_use', id: block.id, name: block.name, input: isObject(block.input) ? block.input : {} }];
    case 'tool_result':
      return [
        {
          type: 'tool_result',
          tool_use_id: block.toolUseId,
          content: block.content,
          ...(block.isError ? { is_error: true } : {}),
        },
      ];
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}
