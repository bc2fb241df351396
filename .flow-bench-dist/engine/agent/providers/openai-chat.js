/**
 * OpenAI-compatible Chat Completions over SSE — OpenRouter, Ollama, vLLM, llama.cpp's server and
 * LM Studio by base URL. Tool calls arrive as `delta.tool_calls[i]` fragments keyed by `index`
 * (id and name once, arguments in pieces); reasoning arrives as `reasoning_content` or
 * `reasoning`, kept apart from text. A server that ignores `stream: true` and answers with one
 * JSON document is read too.
 */
import { streamError } from '../errors.js';
import { mergeRoles, textOf } from '../messages.js';
import { emptyUsage, tokenCount } from '../usage.js';
import { BlockAssembler } from './block-assembler.js';
import { OPENAI_REASONING_EFFORT } from './effort.js';
import { isJsonResponse, joinUrl, obj, openCall, parseData, readSse, str } from './http-call.js';
/** Slots for the one text and one reasoning block, ahead of tool calls (index ≥ 0). */
const REASONING_SLOT = -2;
const TEXT_SLOT = -1;
const FINISH = { stop: 'end_turn', tool_calls: 'tool_use', function_call: 'tool_use', length: 'max_tokens', content_filter: 'refusal' };
export class OpenAIChatProvider {
    name;
    api = 'openai-chat';
    #config;
    constructor(config) {
        this.#config = config;
        this.name = config.name;
    }
    async complete(request, options = {}) {
        const headers = {};
        if (this.#config.apiKey !== undefined)
            headers.authorization = `Bearer ${this.#config.apiKey.reveal()}`;
        const response = await openCall(this.#config, joinUrl(this.#config.baseUrl, 'chat/completions'), headers, chatBody(request), options.signal);
        const blocks = new BlockAssembler(this.name, 'openai-chat');
        const state = { usage: emptyUsage(), finish: undefined, model: undefined };
        if (isJsonResponse(response)) {
            const whole = parseData(this.name, { event: '', data: await response.text() });
            readChoice(whole, blocks, state, options.sink, 'message');
        }
        else {
            let done = false;
            await readSse(response, (event) => {
                // Read on to the end of the body after [DONE]: leaving early would cost the keep-alive connection.
                if (done)
                    return;
                if (event.data.trim() === '[DONE]') {
                    done = true;
                    return;
                }
                const chunk = parseData(this.name, event);
                if (chunk.error !== undefined) {
                    const error = obj(chunk.error);
                    throw streamError(this.name, `stream error: ${str(error.message) ?? JSON.stringify(chunk.error).slice(0, 200)}`, { transient: true });
                }
                readChoice(chunk, blocks, state, options.sink, 'delta');
            });
            if (!done && state.finish === undefined)
                throw streamError(this.name, 'stream ended before [DONE]', { transient: true });
        }
        const content = blocks.blocks();
        const raw = state.finish ?? '';
        // Some servers (Ollama among them) report `stop` even when the message carries tool calls.
        const stopReason = blocks.toolCount > 0 && (raw === 'stop' || raw === '' || raw === 'tool_calls') ? 'tool_use' : raw === '' ? 'end_turn' : (FINISH[raw] ?? 'unknown');
        return { content, stopReason, rawStopReason: raw, usage: state.usage, ...(state.model !== undefined ? { model: state.model } : {}) };
    }
}
/** Folds one chunk (or one whole completion) into the assembler. */
function readChoice(chunk, blocks, state, sink, field) {
    state.model ??= str(chunk.model);
    if (chunk.usage !== undefined && chunk.usage !== null)
        state.usage = chatUsage(obj(chunk.usage));
    const choice = obj(Array.isArray(chunk.choices) ? chunk.choices[0] : undefined);
    const delta = obj(choice[field]);
    const reasoning = str(delta.reasoning_content) ?? str(delta.reasoning);
    if (reasoning) {
        blocks.reasoning(REASONING_SLOT, reasoning);
        sink?.reasoning?.(reasoning);
    }
    const text = str(delta.content);
    if (text) {
        blocks.text(TEXT_SLOT, text);
        sink?.text?.(text);
    }
    if (Array.isArray(delta.tool_calls)) {
        delta.tool_calls.forEach((raw, position) => {
            const call = obj(raw);
            const fn = obj(call.function);
            const index = typeof call.index === 'number' ? call.index : position;
            const args = fn.arguments;
            blocks.tool(index, { id: str(call.id) ?? '', name: str(fn.name) ?? '', args: typeof args === 'string' ? args : args !== undefined ? JSON.stringify(args) : '' });
        });
    }
    const finish = str(choice.finish_reason);
    if (finish)
        state.finish = finish;
}
function chatUsage(u) {
    return {
        inputTokens: tokenCount(u.prompt_tokens),
        outputTokens: tokenCount(u.completion_tokens),
        cachedInputTokens: tokenCount(obj(u.prompt_tokens_details).cached_tokens),
        reasoningTokens: tokenCount(obj(u.completion_tokens_details).reasoning_tokens),
    };
}
/** The request body. Exported for wire-format tests. */
export function chatBody(request) {
    const messages = [];
    if (request.system !== '')
        messages.push({ role: 'system', content: request.system });
    for (const message of mergeRoles(request.messages))
        messages.push(...toWire(message));
    const body = {
        model: request.model,
        messages,
        stream: true,
        stream_options: { include_usage: true },
        max_tokens: request.maxOutputTokens,
    };
    if (request.tools.length > 0)
        body.tools = request.tools.map((t) => ({ type: 'function', function: { name: t.name, description: t.description, parameters: t.inputSchema } }));
    if (request.effort !== undefined)
        body.reasoning_effort = OPENAI_REASONING_EFFORT[request.effort];
    return body;
}
function toWire(message) {
    if (message.role === 'assistant') {
        const calls = message.content.flatMap((b) => b.type === 'tool_use' ? [{ id: b.id, type: 'function', function: { name: b.name, arguments: typeof b.input === 'string' ? b.input : JSON.stringify(b.input ?? {}) } }] : []);
        const text = textOf(message.content);
        return [{ role: 'assistant', content: text === '' ? null : text, ...(calls.length > 0 ? { tool_calls: calls } : {}) }];
    }
    const out = [];
    for (const block of message.content)
        if (block.type === 'tool_result')
            out.push({ role: 'tool', tool_call_id: block.toolUseId, content: block.content });
    const text = message.content.flatMap((b) => (b.type === 'text' && b.text !== '' ? [b.text] : [])).join('\n\n');
    if (text !== '')
        out.push({ role: 'user', content: text });
    return out;
}
