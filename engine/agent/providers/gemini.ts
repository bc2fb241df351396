/**
 * Google Gemini `streamGenerateContent` over SSE. Each event is a whole GenerateContentResponse
 * holding the next parts: text, thoughts (`thought: true`), and function calls that arrive whole.
 * Thought signatures ride on parts and are replayed on the same parts next time.
 */
import { streamError } from '../errors.js';
import type { ContentBlock, Message, ModelRequest, ModelResponse, StopReason, ToolSpec } from '../messages.js';
import { mergeRoles } from '../messages.js';
import { emptyUsage, tokenCount, type AgentUsage } from '../usage.js';
import { BlockAssembler } from './block-assembler.js';
import { GEMINI_THINKING_BUDGET } from './effort.js';
import { joinUrl, obj, openCall, parseData, readSse, str } from './http-call.js';
import { defined } from '../../util/defined.js';
import { memoByIdentity } from '../../util/memo-by-identity.js';
import type { CompleteOptions, HttpProviderConfig, Provider } from './provider.js';

const REFUSALS = new Set(['SAFETY', 'RECITATION', 'BLOCKLIST', 'PROHIBITED_CONTENT', 'SPII', 'IMAGE_SAFETY']);

export class GeminiProvider implements Provider {
  readonly name: string;
  readonly api = 'gemini' as const;
  readonly #config: HttpProviderConfig;

  constructor(config: HttpProviderConfig) {
    this.#config = config;
    this.name = config.name;
  }

  async complete(request: ModelRequest, options: CompleteOptions = {}): Promise<ModelResponse> {
    const base = this.#config.baseUrl;
    const prefix = /\/v1(beta)?\/?$/.test(base) ? '' : 'v1beta/';
    const url = joinUrl(base, `${prefix}models/${encodeURIComponent(request.model)}:streamGenerateContent?alt=sse`);
    const headers: Record<string, string> = {};
    if (this.#config.apiKey !== undefined) headers['x-goog-api-key'] = this.#config.apiKey.reveal();
    const response = await openCall(this.#config, url, headers, geminiBody(request), options.signal);

    const blocks = new BlockAssembler(this.name, 'gemini');
    let usage: AgentUsage = emptyUsage();
    let finish: string | undefined;
    let model: string | undefined;
    let slot = 0;
    let last: 'text' | 'thought' | 'call' | undefined;
    const textPart = (text: string, kind: 'text' | 'thought'): void => {
      if (last !== kind) slot += 1;
      last = kind;
      if (kind === 'thought') {
        blocks.reasoning(slot, text);
        options.sink?.reasoning?.(text);
      } else {
        blocks.text(slot, text);
        options.sink?.text?.(text);
      }
    };
    const onEvent = (data: string, event: string): void => {
      const chunk = parseData(this.name, data, event);
      if (chunk.error !== undefined) {
        const error = obj(chunk.error);
        throw streamError(
          this.name,
          `stream error ${str(error.status) ?? ''}: ${str(error.message) ?? ''}`.replace(/\s+:/, ':'),
          { transient: true },
        );
      }
      model ??= str(chunk.modelVersion);
      if (chunk.usageMetadata !== undefined) usage = geminiUsage(obj(chunk.usageMetadata));
      const blocked = str(obj(chunk.promptFeedback).blockReason);
      if (blocked) finish = blocked;
      const candidate = obj(Array.isArray(chunk.candidates) ? chunk.candidates[0] : undefined);
      const parts = Array.isArray(obj(candidate.content).parts) ? (obj(candidate.content).parts as unknown[]) : [];
      for (const raw of parts) {
        const part = obj(raw);
        const signature = str(part.thoughtSignature);
        if (part.functionCall !== undefined) {
          const call = obj(part.functionCall);
          slot += 1;
          blocks.tool(slot, { id: str(call.id) ?? `call_${slot}`, name: str(call.name) ?? '' });
          blocks.setToolArgs(slot, { input: call.args ?? {} });
          if (signature) blocks.replay(slot, { thoughtSignature: signature });
          last = 'call';
        } else if (typeof part.text === 'string') {
          const kind = part.thought === true ? 'thought' : 'text';
          textPart(part.text, kind);
          if (signature) {
            // A signature on a text part belongs with it; keep it on a reasoning slot beside it.
            if (kind === 'thought') blocks.replay(slot, { thoughtSignature: signature });
            else blocks.replay(slot + 0.5, { thoughtSignature: signature });
          }
        }
      }
      const reason = str(candidate.finishReason);
      if (reason) finish = reason;
    };
    await readSse(response, onEvent);
    if (finish === undefined) throw streamError(this.name, 'stream ended without a finishReason', { transient: true });
    const content = blocks.blocks();
    const stopReason: StopReason =
      blocks.toolCount > 0 && finish === 'STOP'
        ? 'tool_use'
        : finish === 'STOP'
          ? 'end_turn'
          : finish === 'MAX_TOKENS'
            ? 'max_tokens'
            : REFUSALS.has(finish)
              ? 'refusal'
              : 'unknown';
    return { content, stopReason, rawStopReason: finish, usage, ...defined({ model }) };
  }
}

function geminiUsage(u: Record<string, unknown>): AgentUsage {
  const thoughts = tokenCount(u.thoughtsTokenCount);
  return {
    inputTokens: tokenCount(u.promptTokenCount),
    outputTokens: tokenCount(u.candidatesTokenCount) + thoughts,
    cachedInputTokens: tokenCount(u.cachedContentTokenCount),
    reasoningTokens: thoughts,
  };
}

const wireTools = memoByIdentity((tools: readonly ToolSpec[]) => [
  {
    functionDeclarations: tools.map((t) => ({
      name: t.name,
      description: t.description,
      parameters: geminiSchema(t.inputSchema),
    })),
  },
]);

/** The request body. Exported for wire-format tests. */
export function geminiBody(request: ModelRequest): Record<string, unknown> {
  const body: Record<string, unknown> = {
    contents: mergeRoles(request.messages).map(toWire),
    generationConfig: { maxOutputTokens: request.maxOutputTokens },
  };
  if (request.system !== '') body.systemInstruction = { parts: [{ text: request.system }] };
  if (request.tools.length > 0) {
    body.tools = wireTools(request.tools);
  }
  if (request.effort !== undefined) {
    (body.generationConfig as Record<string, unknown>).thinkingConfig = {
      thinkingBudget: GEMINI_THINKING_BUDGET[request.effort],
      includeThoughts: true,
    };
  }
  return body;
}

function toWire(message: Message): Record<string, unknown> {
  const parts: Record<string, unknown>[] = [];
  let pendingSignature: string | undefined;
  for (const block of message.content) {
    const part = blockToPart(block);
    if (
      block.type === 'reasoning' &&
      block.replay?.api === 'gemini' &&
      typeof block.replay.data.thoughtSignature === 'string' &&
      block.text === ''
    ) {
      // A bare signature slot: it belongs on the part before it.
      const previous = parts[parts.length - 1];
      if (previous !== undefined) previous.thoughtSignature = block.replay.data.thoughtSignature;
      else pendingSignature = block.replay.data.thoughtSignature;
      continue;
    }
    if (part === undefined) continue;
    if (pendingSignature !== undefined) {
      part.thoughtSignature = pendingSignature;
      pendingSignature = undefined;
    }
    parts.push(part);
  }
  if (parts.length === 0) parts.push({ text: '(empty)' });
  return { role: message.role === 'assistant' ? 'model' : 'user', parts };
}

function blockToPart(block: ContentBlock): Record<string, unknown> | undefined {
  const signature =
    block.type !== 'text' && block.type !== 'tool_result' && block.replay?.api === 'gemini'
      ? block.replay.data.thoughtSignature
      : undefined;
  const withSignature = (part: Record<string, unknown>): Record<string, unknown> =>
    typeof signature === 'string' ? { ...part, thoughtSignature: signature } : part;
  switch (block.type) {
    case 'text':
      return block.text === '' ? undefined : { text: block.text };
    case 'reasoning':
      return block.replay?.api === 'gemini' ? withSignature({ text: block.text, thought: true }) : undefined;
    case 'tool_use':
      return withSignature({
        functionCall: {
          name: block.name,
          args: typeof block.input === 'object' && block.input !== null ? block.input : {},
        },
      });
    case 'tool_result':
      return {
        functionResponse: {
          name: block.name,
          response: block.isError ? { error: block.content } : { output: block.content },
        },
      };
  }
}

/** Gemini takes an OpenAPI subset: keywords it does not know are an error, so they are dropped. */
export function geminiSchema(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(geminiSchema);
  if (schema === null || typeof schema !== 'object') return schema;
  const keep = [
    'type',
    'description',
    'properties',
    'required',
    'items',
    'enum',
    'format',
    'nullable',
    'minimum',
    'maximum',
    'minItems',
    'maxItems',
  ];
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(schema as Record<string, unknown>)) {
    if (!keep.includes(key)) continue;
    if (key === 'properties') {
      out.properties = Object.fromEntries(Object.entries(obj(value)).map(([k, v]) => [k, geminiSchema(v)]));
    } else if (key === 'items') {
      out.items = geminiSchema(value);
    } else {
      out[key] = value;
    }
  }
  return out;
}
