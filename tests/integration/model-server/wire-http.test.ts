import { afterEach, describe, expect, it } from 'vitest';
import type { ModelScript } from '../../../engine/model-server/index.js';
import * as golden from '../../unit/model-server/golden.js';
import { closeAll, PATHS, post, REQUESTS, serve } from './http.js';

afterEach(closeAll);

const TEXT: ModelScript = { turns: [{ text: 'Hi there!', chunk: 4, usage: { input: 10, output: 3 } }] };
const TOOL: ModelScript = {
  turns: [
    {
      text: 'Writing.',
      tools: [{ name: 'Write', arguments: { path: 'a.txt' } }],
      chunk: 6,
      usage: { input: 20, output: 7, cachedInput: 2 },
    },
  ],
};

describe('each wire format over HTTP is byte-exact', () => {
  it.each([
    ['anthropic', TEXT, golden.ANTHROPIC_TEXT_SSE],
    ['anthropic', TOOL, golden.ANTHROPIC_TOOL_SSE],
    ['responses', TEXT, golden.RESPONSES_TEXT_SSE],
    ['responses', TOOL, golden.RESPONSES_TOOL_SSE],
    ['chat', TEXT, golden.CHAT_TEXT_SSE],
    ['chat', TOOL, golden.CHAT_TOOL_SSE],
    ['gemini', TEXT, golden.GEMINI_TEXT_SSE],
    ['gemini', TOOL, golden.GEMINI_TOOL_SSE],
  ] as const)('%s %#', async (api, script, expected) => {
    const server = await serve(script);
    const response = await post(server.url + PATHS[api], REQUESTS[api]());
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
    expect(response.text).toBe(expected);
  });

  it('a custom (freeform) tool offered by the request is called as one, in Responses and Chat', async () => {
    const script: ModelScript = {
      turns: [
        {
          reasoning: 'Think.',
          tools: [{ name: 'apply_patch', arguments: '*** Begin Patch\n*** End Patch' }],
          chunk: 16,
          usage: { input: 5, output: 4, reasoning: 1 },
        },
      ],
    };
    const responses = await serve(script);
    const r = await post(
      responses.url + PATHS.responses,
      REQUESTS.responses({ tools: [{ type: 'custom', name: 'apply_patch', format: { type: 'grammar' } }] }),
    );
    expect(r.text).toBe(golden.RESPONSES_CUSTOM_SSE);
    const chat = await serve(script);
    const c = await post(
      chat.url + PATHS.chat,
      REQUESTS.chat({ tools: [{ type: 'custom', custom: { name: 'apply_patch' } }] }),
    );
    expect(c.text).toBe(golden.CHAT_CUSTOM_SSE);
  });

  it('non-streamed Chat Completions is plain JSON', async () => {
    const server = await serve(TOOL);
    const response = await post(server.url + PATHS.chat, REQUESTS.chat({ stream: false }));
    expect(response.headers.get('content-type')).toBe('application/json');
    expect(JSON.parse(response.text)).toEqual({
      id: 'chatcmpl-t_1',
      object: 'chat.completion',
      created: 1700000000,
      model: 'm-1',
      choices: [
        {
          index: 0,
          message: {
            role: 'assistant',
            content: 'Writing.',
            tool_calls: [
              { id: 'call_t_1_0', type: 'function', function: { name: 'Write', arguments: '{"path":"a.txt"}' } },
            ],
          },
          finish_reason: 'tool_calls',
        },
      ],
      usage: {
        prompt_tokens: 22,
        completion_tokens: 7,
        total_tokens: 29,
        prompt_tokens_details: { cached_tokens: 2 },
        completion_tokens_details: { reasoning_tokens: 0 },
      },
    });
  });

  it('non-streamed Anthropic Messages is one message object', async () => {
    const server = await serve(TEXT);
    const response = await post(server.url + PATHS.anthropic, REQUESTS.anthropic({ stream: false }));
    expect(JSON.parse(response.text)).toEqual({
      id: 'msg_t_1',
      type: 'message',
      role: 'assistant',
      model: 'm-1',
      content: [{ type: 'text', text: 'Hi there!' }],
      stop_reason: 'end_turn',
      stop_sequence: null,
      usage: { input_tokens: 10, cache_creation_input_tokens: 0, cache_read_input_tokens: 0, output_tokens: 3 },
    });
  });

  it('Gemini streamGenerateContent without alt=sse is a JSON array', async () => {
    const server = await serve(TEXT);
    const response = await post(`${server.url}/v1beta/models/m-1:streamGenerateContent`, REQUESTS.gemini());
    const chunks = JSON.parse(response.text) as Array<{
      candidates: Array<{ content: { parts: Array<{ text: string }> } }>;
    }>;
    expect(chunks.map((c) => c.candidates[0]!.content.parts[0]!.text)).toEqual(['Hi t', 'here', '!', '']);
  });

  it('routes by suffix: a base URL without /v1 works too', async () => {
    const server = await serve(TEXT);
    const response = await post(`${server.url}/chat/completions`, REQUESTS.chat());
    expect(response.text).toBe(golden.CHAT_TEXT_SSE);
  });
});
