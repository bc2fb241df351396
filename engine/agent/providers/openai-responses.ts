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
import { defined } from '../../util/defined.js';
import { memoByIdentity } from '../../util/memo-by-identity.js';
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
    // The delta events: each appends its text to one output item.
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
    await readSse(response, onEvent);
    if (finished === undefined)
      throw streamError(this.name, 'stream ended before response.completed', { transient: true });
    const content = blocks.blocks();
    if (refusal !== '') content.push({ type: 'text', text: refusal });
    const stopReason = responsesStop(finished, refusal !== '', blocks.toolCount > 0);
    const raw = finished.reason !== '' ? `${finished.status}:${finished.reason}` : finished.status;
    return { content, stopReason, rawStopReason: raw, usage, ...defined({ model }) };
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
