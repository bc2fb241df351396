/**
 * OpenAI-compatible Chat Completions over SSE — OpenRouter, Ollama, vLLM, llama.cpp's server and
 * LM Studio by base URL. Tool calls arrive as `delta.tool_calls[i]` fragments keyed by `index`
 * (id and name once, arguments in pieces); reasoning arrives as `reasoning_content` or
 * `reasoning`, kept apart from text. A server that ignores `stream: true` and answers with one
 * JSON document is read too.
 */
import { streamError } from '../errors.js';
import type { Message, ModelRequest, ModelResponse, StopReason, StreamSink, ToolSpec } from '../messages.js';
import { mergeRoles, textOf } from '../messages.js';
import { emptyUsage, tokenCount, type AgentUsage } from '../usage.js';
import { BlockAssembler } from './block-assembler.js';
import { OPENAI_REASONING_EFFORT } from './effort.js';
import { isJsonResponse, joinUrl, obj, openCall, parseData, readSse, str } from './http-call.js';
import { defined } from '../../util/defined.js';
import { memoByIdentity } from '../../util/memo-by-identity.js';
import type { CompleteOptions, HttpProviderConfig, Provider } from './provider.js';

/** Slots for the one text and one reasoning block, ahead of tool calls (index ≥ 0). */
const REASONING_SLOT = -2;
const TEXT_SLOT = -1;

const FINISH: Record<string, StopReason> = {
  stop: 'end_turn',
  tool_calls: 'tool_use',
  function_call: 'tool_use',
  length: 'max_tokens',
  content_filter: 'refusal',
};

export class OpenAIChatProvider implements Provider {
  readonly name: string;
  readonly api = 'openai-chat' as const;
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
      joinUrl(this.#config.baseUrl, 'chat/completions'),
      headers,
      chatBody(request),
      options.signal,
    );
    const blocks = new BlockAssembler(this.name, 'openai-chat');
    const state: ChatState = { usage: emptyUsage(), finish: undefined, model: undefined };
    if (isJsonResponse(response)) {
      const whole = parseData(this.name, await response.text());
      readChoice(whole, blocks, state, options.sink, 'message');
    } else {
      let done = false;
      const onEvent = (data: string, event: string): void => {
        // Read on to the end of the body after [DONE]: leaving early would cost the keep-alive connection.
        if (done) return;
        if (data.trim() === '[DONE]') {
          done = true;
          return;
        }
        const chunk = parseData(this.name, data, event);
        if (chunk.error !== undefined) {
          const error = obj(chunk.error);
          throw streamError(
            this.name,
            `stream error: ${str(error.message) ?? JSON.stringify(chunk.error).slice(0, 200)}`,
            { transient: true },
          );
        }
        readChoice(chunk, blocks, state, options.sink, 'delta');
      };
      await readSse(response, onEvent);
      if (!done && state.finish === undefined)
        throw streamError(this.name, 'stream ended before [DONE]', { transient: true });
    }
    const content = blocks.blocks();
    const raw = state.finish ?? '';
    // Some servers (Ollama among them) report `stop` even when the message carries tool calls.
    const stopReason =
      blocks.toolCount > 0 && (raw === 'stop' || raw === '' || raw === 'tool_calls')
        ? 'tool_use'
        : raw === ''
          ? 'end_turn'
          : (FINISH[raw] ?? 'unknown');
    return {
      content,
      stopReason,
      rawStopReason: raw,
      usage: state.usage,
      ...defined({ model: state.model }),
    };
  }
}

interface ChatState {
  usage: AgentUsage;
  finish: string | undefined;
  model: string | undefined;
}

/** Folds one chunk (or one whole completion) into the assembler; the first chunk naming a model sets it. */
function readChoice(
  chunk: Record<string, unknown>,
  blocks: BlockAssembler,
  state: ChatState,
  sink: StreamSink | undefined,
  field: 'delta' | 'message',
): void {
  state.model ??= str(chunk.model);
  if (chunk.usage !== undefined && chunk.usage !== null) state.usage = chatUsage(obj(chunk.usage));
  const choice = obj(Array.isArray(chunk.choices) ? chunk.choices[0] : undefined);
  const delta = obj(choice[field]);
  const reasoning = str(delta.reasoning_content) ?? str(delta.reasoning);
  if (reasoning) {
    blocks.reasoning(REASONING_SLOT, reasoning);
    sink?.reasoning?.(reasoning);
  }
  const text = str(delta.content);
  if (text) appendText(text, blocks, sink);
  const calls = delta.tool_calls;
  if (Array.isArray(calls)) {
    calls.forEach((raw, position) => {
      const call = obj(raw);
      const fn = obj(call.function);
      const index = typeof call.index === 'number' ? call.index : position;
      const args = fn.arguments;
      blocks.tool(index, {
        id: str(call.id) ?? '',
        name: str(fn.name) ?? '',
        args: typeof args === 'string' ? args : args !== undefined ? JSON.stringify(args) : '',
      });
    });
  }
  const finish = str(choice.finish_reason);
  if (finish) state.finish = finish;
}

function appendText(text: string, blocks: BlockAssembler, sink: StreamSink | undefined): void {
  if (text === '') return;
  blocks.text(TEXT_SLOT, text);
  sink?.text?.(text);
}

function chatUsage(u: Record<string, unknown>): AgentUsage {
  return {
    inputTokens: tokenCount(u.prompt_tokens),
    outputTokens: tokenCount(u.completion_tokens),
    cachedInputTokens: tokenCount(obj(u.prompt_tokens_details).cached_tokens),
    reasoningTokens: tokenCount(obj(u.completion_tokens_details).reasoning_tokens),
  };
}

/** The request body. Exported for wire-format tests. */
export function chatBody(request: ModelRequest): Record<string, unknown> {
  const messages: Record<string, unknown>[] = [];
  if (request.system !== '') messages.push({ role: 'system', content: request.system });
  for (const message of mergeRoles(request.messages)) messages.push(...toWire(message));
  const body: Record<string, unknown> = {
    model: request.model,
    messages,
    stream: true,
    stream_options: { include_usage: true },
    max_tokens: request.maxOutputTokens,
  };
  if (request.tools.length > 0) body.tools = wireTools(request.tools);
  if (request.effort !== undefined) body.reasoning_effort = OPENAI_REASONING_EFFORT[request.effort];
  return body;
}

const wireTools = memoByIdentity((tools: readonly ToolSpec[]) =>
  tools.map((t) => ({
    type: 'function',
    function: { name: t.name, description: t.description, parameters: t.inputSchema },
  })),
);

function toWire(message: Message): Record<string, unknown>[] {
  if (message.role === 'assistant') {
    const calls = message.content.flatMap((b) =>
      b.type === 'tool_use'
        ? [
            {
              id: b.id,
              type: 'function',
              function: {
                name: b.name,
                arguments: typeof b.input === 'string' ? b.input : JSON.stringify(b.input ?? {}),
              },
            },
          ]
        : [],
    );
    const text = textOf(message.content);
    return [
      { role: 'assistant', content: text === '' ? null : text, ...(calls.length > 0 ? { tool_calls: calls } : {}) },
    ];
  }
  const out: Record<string, unknown>[] = [];
  for (const block of message.content)
    if (block.type === 'tool_result') out.push({ role: 'tool', tool_call_id: block.toolUseId, content: block.content });
  const text = message.content.flatMap((b) => (b.type === 'text' && b.text !== '' ? [b.text] : [])).join('\n\n');
  if (text !== '') out.push({ role: 'user', content: text });
  return out;
}
