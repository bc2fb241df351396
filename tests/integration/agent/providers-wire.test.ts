import { afterEach, describe, expect, it } from 'vitest';
import { Secret, type ContentBlock, type ModelRequest, type ProviderApi } from '../../../engine/agent/index.js';
import type { ModelServer } from '../../../engine/model-server/index.js';
import { APIS, providerFor, serve, SERVER_API } from '../../fixtures/agent/servers.js';

let server: ModelServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const WRITE_TOOL = {
  name: 'write_file',
  description: 'writes',
  inputSchema: {
    type: 'object',
    properties: { path: { type: 'string' }, content: { type: 'string' } },
    required: ['path', 'content'],
    additionalProperties: false,
  },
};

function request(messages: ModelRequest['messages'], extra: Partial<ModelRequest> = {}): ModelRequest {
  return {
    model: 'test-model',
    system: 'You are a test.',
    messages,
    tools: [WRITE_TOOL],
    maxOutputTokens: 1000,
    ...extra,
  };
}

const USAGE: Record<ProviderApi, object> = {
  anthropic: { inputTokens: 110, outputTokens: 20, cachedInputTokens: 10, reasoningTokens: 0 },
  'openai-responses': { inputTokens: 110, outputTokens: 20, cachedInputTokens: 10, reasoningTokens: 5 },
  'openai-chat': { inputTokens: 110, outputTokens: 20, cachedInputTokens: 10, reasoningTokens: 5 },
  gemini: { inputTokens: 110, outputTokens: 25, cachedInputTokens: 10, reasoningTokens: 5 },
};

describe.each(APIS)('%s wire format', (api) => {
  it('reassembles fragmented text, reasoning and tool calls, then replays the transcript', async () => {
    server = await serve({
      turns: [
        {
          reasoning: 'I should write the file first.',
          text: 'Writing it now.',
          tools: [
            { name: 'write_file', id: 'call_a', arguments: { path: 'a.txt', content: 'hello, fragmented world' } },
            { name: 'write_file', id: 'call_b', arguments: { path: 'b.txt', content: 'second' } },
          ],
          chunk: 3,
          usage: { input: 100, output: 20, cachedInput: 10, reasoning: 5 },
        },
        { when: { toolResult: 'wrote a.txt' }, text: 'All done.' },
      ],
    });
    const { provider } = providerFor(server, api);
    const deltas: string[] = [];
    const thoughts: string[] = [];
    const first = await provider.complete(
      request([{ role: 'user', content: [{ type: 'text', text: 'write a.txt' }] }], { effort: 'low' }),
      {
        sink: { text: (d) => deltas.push(d), reasoning: (d) => thoughts.push(d) },
      },
    );
    expect(first.stopReason).toBe('tool_use');
    expect(first.usage).toEqual(USAGE[api]);
    const visible = first.content.map((b) =>
      b.type === 'reasoning'
        ? { type: 'reasoning', text: b.text }
        : b.type === 'tool_use'
          ? { type: 'tool_use', name: b.name, input: b.input }
          : b,
    );
    expect(visible).toEqual([
      { type: 'reasoning', text: 'I should write the file first.' },
      { type: 'text', text: 'Writing it now.' },
      { type: 'tool_use', name: 'write_file', input: { path: 'a.txt', content: 'hello, fragmented world' } },
      { type: 'tool_use', name: 'write_file', input: { path: 'b.txt', content: 'second' } },
    ]);
    // Fragments streamed live, reasoning apart from text.
    expect(deltas.length).toBeGreaterThan(1);
    expect(deltas.join('')).toBe('Writing it now.');
    expect(thoughts.join('')).toBe('I should write the file first.');
    const calls = first.content.filter((b): b is Extract<ContentBlock, { type: 'tool_use' }> => b.type === 'tool_use');
    expect(new Set(calls.map((c) => c.id)).size).toBe(2);

    const second = await provider.complete(
      request([
        { role: 'user', content: [{ type: 'text', text: 'write a.txt' }] },
        { role: 'assistant', content: first.content },
        {
          role: 'user',
          content: [
            {
              type: 'tool_result',
              toolUseId: calls[0]!.id,
              name: 'write_file',
              content: 'wrote a.txt',
              isError: false,
            },
            {
              type: 'tool_result',
              toolUseId: calls[1]!.id,
              name: 'write_file',
              content: 'denied by the user',
              isError: true,
            },
          ],
        },
      ]),
    );
    expect(second.stopReason).toBe('end_turn');
    expect(second.content).toEqual([{ type: 'text', text: 'All done.' }]);
    expect(server.requests.map((r) => [r.api, r.turn])).toEqual([
      [SERVER_API[api], 0],
      [SERVER_API[api], 1],
    ]);
    expect(server.requests[0]!.toolsOffered).toEqual(['write_file']);
  });

  it('sends the transcript in the API’s own shape', async () => {
    server = await serve({ turns: [{ text: 'ok' }] });
    const { provider } = providerFor(server, api);
    await provider.complete(
      request([
        { role: 'user', content: [{ type: 'text', text: 'hi' }] },
        {
          role: 'assistant',
          content: [
            { type: 'text', text: 'calling' },
            { type: 'tool_use', id: 'c1', name: 'write_file', input: { path: 'x', content: 'y' } },
          ],
        },
        {
          role: 'user',
          content: [{ type: 'tool_result', toolUseId: 'c1', name: 'write_file', content: 'done', isError: false }],
        },
        { role: 'user', content: [{ type: 'text', text: 'guidance' }], pin: 'guidance' },
      ]),
    );
    const body = server.requests[0]!.body as Record<string, unknown>;
    if (api === 'anthropic') {
      expect(body).toMatchObject({
        model: 'test-model',
        max_tokens: 1000,
        stream: true,
        system: [{ type: 'text', text: 'You are a test.' }],
      });
      expect(body.messages).toEqual([
        { role: 'user', content: [{ type: 'text', text: 'hi' }] },
        {
          role: 'assistant',
          content: [
            { type: 'text', text: 'calling' },
            { type: 'tool_use', id: 'c1', name: 'write_file', input: { path: 'x', content: 'y' } },
          ],
        },
        {
          role: 'user',
          content: [
            { type: 'tool_result', tool_use_id: 'c1', content: 'done' },
            { type: 'text', text: 'guidance' },
          ],
        },
      ]);
    } else if (api === 'openai-responses') {
      expect(body).toMatchObject({
        model: 'test-model',
        instructions: 'You are a test.',
        stream: true,
        store: false,
        max_output_tokens: 1000,
      });
      expect(body.input).toEqual([
        { role: 'user', content: [{ type: 'input_text', text: 'hi' }] },
        { role: 'assistant', content: [{ type: 'output_text', text: 'calling' }] },
        { type: 'function_call', call_id: 'c1', name: 'write_file', arguments: '{"path":"x","content":"y"}' },
        { type: 'function_call_output', call_id: 'c1', output: 'done' },
        { role: 'user', content: [{ type: 'input_text', text: 'guidance' }] },
      ]);
    } else if (api === 'openai-chat') {
      expect(body).toMatchObject({
        model: 'test-model',
        stream: true,
        stream_options: { include_usage: true },
        max_tokens: 1000,
      });
      expect(body.messages).toEqual([
        { role: 'system', content: 'You are a test.' },
        { role: 'user', content: 'hi' },
        {
          role: 'assistant',
          content: 'calling',
          tool_calls: [
            { id: 'c1', type: 'function', function: { name: 'write_file', arguments: '{"path":"x","content":"y"}' } },
          ],
        },
        { role: 'tool', tool_call_id: 'c1', content: 'done' },
        { role: 'user', content: 'guidance' },
      ]);
    } else {
      expect(server.requests[0]!.path).toBe('/v1beta/models/test-model:streamGenerateContent');
      expect(body).toMatchObject({
        systemInstruction: { parts: [{ text: 'You are a test.' }] },
        generationConfig: { maxOutputTokens: 1000 },
      });
      expect(body.contents).toEqual([
        { role: 'user', parts: [{ text: 'hi' }] },
        {
          role: 'model',
          parts: [{ text: 'calling' }, { functionCall: { name: 'write_file', args: { path: 'x', content: 'y' } } }],
        },
        {
          role: 'user',
          parts: [{ functionResponse: { name: 'write_file', response: { output: 'done' } } }, { text: 'guidance' }],
        },
      ]);
      // Gemini rejects JSON Schema keywords outside its OpenAPI subset.
      expect(JSON.stringify(body.tools)).not.toContain('additionalProperties');
    }
  });

  it('sends the key in the API’s own header', async () => {
    server = await serve({ turns: [{ text: 'ok' }] });
    const { provider } = providerFor(server, api, { apiKey: new Secret('TEST_KEY', 'sk-test-abcdef') });
    await provider.complete(request([{ role: 'user', content: [{ type: 'text', text: 'hi' }] }]));
    const header = {
      anthropic: 'x-api-key',
      'openai-responses': 'authorization',
      'openai-chat': 'authorization',
      gemini: 'x-goog-api-key',
    }[api];
    expect(server.requests[0]!.headers[header]).toBe('[redacted]');
  });

  it('maps a max_tokens stop', async () => {
    server = await serve({ turns: [{ text: 'cut of', stop: 'max_tokens' }] });
    const { provider } = providerFor(server, api);
    const response = await provider.complete(request([{ role: 'user', content: [{ type: 'text', text: 'hi' }] }]));
    expect(response.stopReason).toBe('max_tokens');
    expect(response.content).toEqual([{ type: 'text', text: 'cut of' }]);
  });
});

describe('Chat Completions servers that ignore stream:true', () => {
  it('reads one plain JSON completion', async () => {
    const { createServer } = await import('node:http');
    const plain = createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(
          JSON.stringify({
            model: 'llama',
            choices: [
              {
                index: 0,
                message: {
                  role: 'assistant',
                  content: 'plain',
                  reasoning_content: 'hm',
                  tool_calls: [
                    {
                      id: 'x1',
                      type: 'function',
                      function: { name: 'write_file', arguments: '{"path":"p","content":"c"}' },
                    },
                  ],
                },
                finish_reason: 'tool_calls',
              },
            ],
            usage: { prompt_tokens: 3, completion_tokens: 4 },
          }),
        );
      });
    });
    await new Promise<void>((r) => plain.listen(0, '127.0.0.1', r));
    try {
      const { createProvider, DEFAULT_RETRY } = await import('../../../engine/agent/index.js');
      const port = (plain.address() as { port: number }).port;
      const provider = createProvider({
        name: 'llamacpp',
        api: 'openai-chat',
        baseUrl: `http://127.0.0.1:${port}/v1`,
        headers: {},
        headersTimeoutMs: 5000,
        idleTimeoutMs: 5000,
        retry: DEFAULT_RETRY,
      });
      const response = await provider.complete(request([{ role: 'user', content: [{ type: 'text', text: 'hi' }] }]));
      expect(response).toEqual({
        content: [
          { type: 'reasoning', text: 'hm' },
          { type: 'text', text: 'plain' },
          { type: 'tool_use', id: 'x1', name: 'write_file', input: { path: 'p', content: 'c' } },
        ],
        stopReason: 'tool_use',
        rawStopReason: 'tool_calls',
        usage: { inputTokens: 3, outputTokens: 4, cachedInputTokens: 0, reasoningTokens: 0 },
        model: 'llama',
      });
    } finally {
      plain.closeAllConnections();
      await new Promise((r) => plain.close(r));
    }
  });
});
