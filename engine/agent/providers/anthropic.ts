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
import { joinUrl, obj, openCall, parseData, readSse, str } from './http-call.js';
import { defined } from '../../util/defined.js';
import { memoByIdentity } from '../../util/memo-by-identity.js';
import type { OpenResponse } from '../http/stream-request.js';
import type { CompleteOptions, HttpProviderConfig, Provider } from './provider.js';
import { isRecord } from '../../util/json-shape.js';

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
    const onEvent = (raw: string, event: string): void => {
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
        if (kind === 'text_delta') {
          const text = str(fragment.text) ?? '';
          blocks.text(index, text);
          options.sink?.text?.(text);
        } else if (kind === 'input_json_delta') blocks.tool(index, { args: str(fragment.partial_json) ?? '' });
        else if (kind === 'thinking_delta') {
          const text = str(fragment.thinking) ?? '';
          blocks.reasoning(index, text);
          options.sink?.reasoning?.(text);
        } else if (kind === 'signature_delta') blocks.replay(index, { signature: str(fragment.signature) ?? '' });
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
    await readSse(response, onEvent);
    if (!stopped) throw streamError(this.name, 'stream ended before message_stop', { transient: true });
    const content = blocks.blocks();
    const stopReason = STOP_REASONS[rawStop] ?? 'unknown';
    return { content, stopReason, rawStopReason: rawStop, usage, ...defined({ model }) };
  }
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
      return [{ type: 'tool_use', id: block.id, name: block.name, input: isRecord(block.input) ? block.input : {} }];
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
