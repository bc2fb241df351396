/**
 * Tool-call fragments that interleave (two calls streaming at once, the second's first fragment
 * arriving before the first's): a Chat Completions server and an Anthropic one, hand-written on
 * 127.0.0.1 because the scripted model server streams calls one after the other.
 */
import { createServer, type Server } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { createProvider, DEFAULT_RETRY, type ProviderApi } from '../../../engine/agent/index.js';

let server: Server | undefined;
afterEach(async () => {
  server?.closeAllConnections();
  await new Promise((r) => (server ? server.close(r) : r(undefined)));
  server = undefined;
});

async function sse(events: string[]): Promise<string> {
  server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      for (const e of events) res.write(e);
      res.end();
    });
  });
  await new Promise<void>((r) => server!.listen(0, '127.0.0.1', r));
  return `http://127.0.0.1:${(server.address() as { port: number }).port}`;
}

const provider = (api: ProviderApi, baseUrl: string) =>
  createProvider({
    name: 'test',
    api,
    baseUrl,
    headers: {},
    headersTimeoutMs: 5000,
    idleTimeoutMs: 5000,
    retry: DEFAULT_RETRY,
  });
const REQUEST = {
  model: 'm',
  system: '',
  messages: [{ role: 'user' as const, content: [{ type: 'text' as const, text: 'go' }] }],
  tools: [],
  maxOutputTokens: 100,
};

describe('interleaved tool-call fragments', () => {
  it('Chat Completions: reassembled by index, emitted in index order', async () => {
    const chunk = (delta: unknown, finish: string | null = null) =>
      `data: ${JSON.stringify({ choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
    const url = await sse([
      chunk({ role: 'assistant', reasoning_content: 'two calls' }),
      chunk({
        tool_calls: [{ index: 1, id: 'call_b', type: 'function', function: { name: 'glob', arguments: '{"pat' } }],
      }),
      chunk({
        tool_calls: [{ index: 0, id: 'call_a', type: 'function', function: { name: 'read_file', arguments: '{"pa' } }],
      }),
      chunk({ tool_calls: [{ index: 1, function: { arguments: 'tern":"*.ts"}' } }] }),
      chunk({ tool_calls: [{ index: 0, function: { arguments: 'th":"a.ts"}' } }] }),
      chunk({}, 'tool_calls'),
      `data: ${JSON.stringify({ choices: [], usage: { prompt_tokens: 9, completion_tokens: 4 } })}\n\n`,
      'data: [DONE]\n\n',
    ]);
    const response = await provider('openai-chat', url).complete(REQUEST);
    expect(response.content).toEqual([
      { type: 'reasoning', text: 'two calls' },
      { type: 'tool_use', id: 'call_a', name: 'read_file', input: { path: 'a.ts' } },
      { type: 'tool_use', id: 'call_b', name: 'glob', input: { pattern: '*.ts' } },
    ]);
    expect(response.stopReason).toBe('tool_use');
    expect(response.usage).toMatchObject({ inputTokens: 9, outputTokens: 4 });
  });

  it('Anthropic: content blocks by index, whatever order their deltas arrive in', async () => {
    const e = (type: string, data: unknown) =>
      `event: ${type}\ndata: ${JSON.stringify({ type, ...(data as object) })}\n\n`;
    const url = await sse([
      e('message_start', { message: { model: 'claude-x', usage: { input_tokens: 5, output_tokens: 1 } } }),
      e('content_block_start', { index: 0, content_block: { type: 'text', text: '' } }),
      e('content_block_start', { index: 2, content_block: { type: 'tool_use', id: 'tu_2', name: 'glob', input: {} } }),
      e('content_block_start', {
        index: 1,
        content_block: { type: 'tool_use', id: 'tu_1', name: 'read_file', input: {} },
      }),
      e('content_block_delta', { index: 2, delta: { type: 'input_json_delta', partial_json: '{"pattern":' } }),
      e('content_block_delta', { index: 0, delta: { type: 'text_delta', text: 'Looking' } }),
      e('content_block_delta', { index: 1, delta: { type: 'input_json_delta', partial_json: '{"path":"b.ts"}' } }),
      e('content_block_delta', { index: 2, delta: { type: 'input_json_delta', partial_json: '"*.md"}' } }),
      e('content_block_stop', { index: 0 }),
      e('message_delta', { delta: { stop_reason: 'tool_use' }, usage: { output_tokens: 30 } }),
      e('message_stop', {}),
    ]);
    const response = await provider('anthropic', url).complete(REQUEST);
    expect(response).toEqual({
      content: [
        { type: 'text', text: 'Looking' },
        { type: 'tool_use', id: 'tu_1', name: 'read_file', input: { path: 'b.ts' } },
        { type: 'tool_use', id: 'tu_2', name: 'glob', input: { pattern: '*.md' } },
      ],
      stopReason: 'tool_use',
      rawStopReason: 'tool_use',
      usage: { inputTokens: 5, outputTokens: 30, cachedInputTokens: 0, reasoningTokens: 0 },
      model: 'claude-x',
    });
  });

  it('Anthropic: a stream that ends before message_stop is a transient stream error; an error event is typed', async () => {
    const e = (type: string, data: unknown) =>
      `event: ${type}\ndata: ${JSON.stringify({ type, ...(data as object) })}\n\n`;
    let url = await sse([
      e('message_start', { message: { usage: {} } }),
      e('content_block_start', { index: 0, content_block: { type: 'text', text: '' } }),
    ]);
    await expect(provider('anthropic', url).complete(REQUEST)).rejects.toMatchObject({
      code: 'MODEL_STREAM_ERROR',
      message: 'test: stream ended before message_stop',
      transient: true,
    });
    server!.closeAllConnections();
    await new Promise((r) => server!.close(r));
    url = await sse([
      e('message_start', { message: { usage: {} } }),
      e('error', { error: { type: 'overloaded_error', message: 'Overloaded' } }),
    ]);
    await expect(provider('anthropic', url).complete(REQUEST)).rejects.toMatchObject({
      code: 'MODEL_STREAM_ERROR',
      message: 'test: stream error overloaded_error: Overloaded',
      transient: true,
      retryable: false,
    });
  });
});
