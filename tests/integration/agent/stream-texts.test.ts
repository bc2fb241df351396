/**
 * Streamed texts end to end: each adapter against a hand-written SSE server on 127.0.0.1 that
 * streams awkward texts (escapes, quotes, multi-byte characters, an event's own closing
 * characters, a text equal to another field) in events of the usual shape and of unusual ones,
 * cut into chunks in different ways. The text that arrives — assembled and as deltas — must be
 * exactly the text sent.
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

type Cut = 'whole' | 'per-event' | 'pieces';

/** Serves `body` as an event stream, written whole, an event at a time, or in 7-byte pieces. */
async function sse(body: string, cut: Cut): Promise<string> {
  server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      const bytes = Buffer.from(body);
      const pieces: Buffer[] = [];
      if (cut === 'whole') pieces.push(bytes);
      else if (cut === 'per-event') for (const event of body.split(/(?<=\n\n)/)) pieces.push(Buffer.from(event));
      else for (let i = 0; i < bytes.length; i += 7) pieces.push(bytes.subarray(i, i + 7));
      const next = (i: number): void => {
        if (i === pieces.length) return void res.end();
        res.write(pieces[i]);
        setImmediate(next, i + 1);
      };
      next(0);
    });
  });
  await new Promise<void>((r) => server!.listen(0, '127.0.0.1', r));
  return `http://127.0.0.1:${(server.address() as { port: number }).port}`;
}

/** Awkward texts; 'm-1' is also the model's name, so a template cannot learn from it. */
const TEXTS = [
  'm-1',
  'Hello, ',
  'with "quotes" ',
  'and \\back\\slashes\\',
  '\nnew\tlines\r\n',
  'é ✓ 😀 \u2028',
  '"}}',
  '"},{"x":1}]}',
  '',
  'end.',
];

/** One stream per API: the hot-shape deltas, with events of other shapes in between. */
function streamFor(api: ProviderApi): string {
  const data = (value: unknown, event?: string) =>
    `${event ? `event: ${event}\n` : ''}data: ${JSON.stringify(value)}\n\n`;
  switch (api) {
    case 'anthropic':
      return [
        data(
          { type: 'message_start', message: { model: 'm-1', usage: { input_tokens: 3, output_tokens: 1 } } },
          'message_start',
        ),
        data({ type: 'ping' }, 'ping'),
        data(
          { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } },
          'content_block_start',
        ),
        ...TEXTS.map((text, i) =>
          i === 4
            ? // The same delta with its keys in another order: the full parse reads it.
              data(
                { index: 0, type: 'content_block_delta', delta: { text, type: 'text_delta' } },
                'content_block_delta',
              )
            : data(
                { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text } },
                i % 3 === 0 ? undefined : 'content_block_delta',
              ),
        ),
        data({ type: 'content_block_stop', index: 0 }, 'content_block_stop'),
        data(
          { type: 'message_delta', delta: { stop_reason: 'end_turn' }, usage: { output_tokens: 9 } },
          'message_delta',
        ),
        data({ type: 'message_stop' }, 'message_stop'),
      ].join('');
    case 'openai-responses':
      return [
        data(
          { type: 'response.created', sequence_number: 0, response: { id: 'r', status: 'in_progress' } },
          'response.created',
        ),
        data(
          {
            type: 'response.output_item.added',
            sequence_number: 1,
            output_index: 0,
            item: { id: 'msg', type: 'message', content: [] },
          },
          'response.output_item.added',
        ),
        ...TEXTS.map((delta, i) =>
          data(
            i === 4
              ? { type: 'response.output_text.delta', sequence_number: i + 2, item_id: 'msg', delta, output_index: 0 }
              : {
                  type: 'response.output_text.delta',
                  sequence_number: i + 2,
                  item_id: 'msg',
                  output_index: 0,
                  content_index: 0,
                  delta,
                  ...(i % 2 ? { logprobs: [], obfuscation: 'x9' } : {}),
                },
            'response.output_text.delta',
          ),
        ),
        data(
          {
            type: 'response.completed',
            sequence_number: 99,
            response: { model: 'm-1', status: 'completed', usage: { input_tokens: 3, output_tokens: 9 } },
          },
          'response.completed',
        ),
      ].join('');
    case 'openai-chat': {
      const chunk = (delta: object, extra: object = {}) =>
        data({
          id: 'c1',
          object: 'chat.completion.chunk',
          created: 1,
          model: 'm-1',
          choices: [{ index: 0, delta, finish_reason: null }],
          ...extra,
        });
      return [
        chunk({ role: 'assistant', content: '' }),
        ...TEXTS.map((content, i) => (i === 4 ? chunk({ content }, { system_fingerprint: 'fp' }) : chunk({ content }))),
        data({
          id: 'c1',
          object: 'chat.completion.chunk',
          created: 1,
          model: 'm-1',
          choices: [{ index: 0, delta: {}, finish_reason: 'stop' }],
        }),
        data({ id: 'c1', choices: [], usage: { prompt_tokens: 3, completion_tokens: 9 } }),
        'data: [DONE]\n\n',
      ].join('');
    }
    case 'gemini': {
      const chunk = (text: string, extra: object = {}) =>
        data({
          candidates: [{ content: { parts: [{ text }], role: 'model' }, index: 0 }],
          modelVersion: 'm-1',
          ...extra,
        });
      return [
        ...TEXTS.map((text, i) => (i === 4 ? chunk(text, { responseId: 'other' }) : chunk(text))),
        data({
          candidates: [{ content: { parts: [{ text: '' }], role: 'model' }, finishReason: 'STOP', index: 0 }],
          usageMetadata: { promptTokenCount: 3, candidatesTokenCount: 9 },
          modelVersion: 'm-1',
        }),
      ].join('');
    }
  }
}

/** Where one text ends and the next begins, in the joined text. */
function cutsOf(texts: readonly string[]): number[] {
  const cuts: number[] = [];
  let at = 0;
  for (const text of texts) cuts.push((at += text.length));
  return [...new Set(cuts)];
}

const REQUEST = {
  model: 'm-1',
  system: '',
  messages: [{ role: 'user' as const, content: [{ type: 'text' as const, text: 'go' }] }],
  tools: [],
  maxOutputTokens: 100,
};
const APIS: readonly ProviderApi[] = ['anthropic', 'openai-responses', 'openai-chat', 'gemini'];
const CUTS: readonly Cut[] = ['whole', 'per-event', 'pieces'];

describe.each(APIS)('%s text deltas', (api) => {
  it.each(CUTS)('arrive exactly as sent, cut %s', async (cut) => {
    const url = await sse(streamFor(api), cut);
    const provider = createProvider({
      name: 'test',
      api,
      baseUrl: url,
      headers: {},
      headersTimeoutMs: 5000,
      idleTimeoutMs: 5000,
      retry: DEFAULT_RETRY,
    });
    const deltas: string[] = [];
    const response = await provider.complete(REQUEST, { sink: { text: (d) => deltas.push(d) } });
    expect(response.content).toEqual([{ type: 'text', text: TEXTS.join('') }]);
    // A run of deltas read at once may come as one: whole deltas joined, none of them cut.
    expect(deltas.join('')).toBe(TEXTS.join(''));
    const sent = cutsOf(TEXTS);
    expect(cutsOf(deltas).every((at) => sent.includes(at))).toBe(true);
    expect(response.stopReason).toBe('end_turn');
    expect(response.model).toBe('m-1');
  });
});

describe('a delta that is not valid JSON', () => {
  it.each(APIS)('%s: fails the stream as the full parse does', async (api) => {
    const good = streamFor(api);
    // A raw control character inside the last text:
    // JSON.parse refuses it, so the stream is malformed.
    const bad = good.replace('end.', 'e\u0001nd.');
    const url = await sse(bad, 'per-event');
    const provider = createProvider({
      name: 'test',
      api,
      baseUrl: url,
      headers: {},
      headersTimeoutMs: 5000,
      idleTimeoutMs: 5000,
      retry: DEFAULT_RETRY,
    });
    await expect(provider.complete(REQUEST)).rejects.toMatchObject({ code: 'MODEL_STREAM_ERROR' });
  });
});

describe('openai-chat tool-call arguments', () => {
  /** Fragments of two calls' arguments: escapes, multi-byte text, the shape's own closing characters. */
  const PIECES: Array<[number, string]> = [
    [0, '{"path":'],
    [0, '"a \\"quoted\\" é 😀 \\u2028'],
    [0, '.txt", "end": "\\"}]}'],
    [0, '"}'],
    [1, '{"n":'],
    [1, '1'],
    [1, ', "m": [2]}'],
  ];

  function stream(pieces: Array<[number, string]>): string {
    const chunk = (delta: object, extra: object = {}) =>
      `data: ${JSON.stringify({ id: 'c1', object: 'chat.completion.chunk', created: 1, model: 'm-1', choices: [{ index: 0, delta, finish_reason: null }], ...extra })}\n\n`;
    const opened = new Set<number>();
    const out = [chunk({ role: 'assistant', content: null })];
    pieces.forEach(([index, args], i) => {
      if (!opened.has(index)) {
        opened.add(index);
        out.push(
          chunk({
            tool_calls: [
              { index, id: `call_${index}`, type: 'function', function: { name: `tool_${index}`, arguments: '' } },
            ],
          }),
        );
      }
      // One fragment in another shape: the full parse reads it, and the template still holds after.
      out.push(
        i === 2
          ? chunk({ tool_calls: [{ index, function: { arguments: args } }] }, { system_fingerprint: 'fp' })
          : chunk({ tool_calls: [{ index, function: { arguments: args } }] }),
      );
    });
    out.push(
      `data: ${JSON.stringify({ id: 'c1', object: 'chat.completion.chunk', created: 1, model: 'm-1', choices: [{ index: 0, delta: {}, finish_reason: 'tool_calls' }] })}\n\n`,
      'data: [DONE]\n\n',
    );
    return out.join('');
  }

  it.each(CUTS)('reassemble exactly, cut %s', async (cut) => {
    const url = await sse(stream(PIECES), cut);
    const provider = createProvider({
      name: 'test',
      api: 'openai-chat',
      baseUrl: url,
      headers: {},
      headersTimeoutMs: 5000,
      idleTimeoutMs: 5000,
      retry: DEFAULT_RETRY,
    });
    const response = await provider.complete(REQUEST);
    expect(response.stopReason).toBe('tool_use');
    expect(response.content).toEqual([
      { type: 'tool_use', id: 'call_0', name: 'tool_0', input: { path: 'a "quoted" é 😀 \u2028.txt', end: '"}]}' } },
      { type: 'tool_use', id: 'call_1', name: 'tool_1', input: { n: 1, m: [2] } },
    ]);
  });

  it('fails the stream on a fragment that is not valid JSON, as the full parse does', async () => {
    // A raw control character in a fragment the template (learned anew for the second call) reads.
    const bad = stream(PIECES).replace('"arguments":"1"', '"arguments":"1\u0001"');
    expect(bad).not.toBe(stream(PIECES));
    const url = await sse(bad, 'per-event');
    const provider = createProvider({
      name: 'test',
      api: 'openai-chat',
      baseUrl: url,
      headers: {},
      headersTimeoutMs: 5000,
      idleTimeoutMs: 5000,
      retry: DEFAULT_RETRY,
    });
    await expect(provider.complete(REQUEST)).rejects.toMatchObject({ code: 'MODEL_STREAM_ERROR' });
  });
});

describe('openai-responses events the adapter does not read', () => {
  const data = (value: Record<string, unknown>, event: string) => `event: ${event}\ndata: ${JSON.stringify(value)}\n\n`;
  const completed = {
    type: 'response.completed',
    sequence_number: 9,
    response: { model: 'm-1', status: 'completed', usage: { input_tokens: 3, output_tokens: 9 } },
  };
  const body = (last: string) =>
    [
      data({ type: 'response.created', response: { id: 'r', status: 'in_progress' } }, 'response.created'),
      data(
        { type: 'response.output_item.added', output_index: 0, item: { id: 'msg', type: 'message', content: [] } },
        'response.output_item.added',
      ),
      data(
        { type: 'response.output_text.delta', item_id: 'msg', output_index: 0, content_index: 0, delta: 'hello' },
        'response.output_text.delta',
      ),
      data(
        { type: 'response.output_text.done', item_id: 'msg', output_index: 0, content_index: 0, text: 'hello' },
        'response.output_text.done',
      ),
      last,
    ].join('');

  async function complete(stream: string) {
    const url = await sse(stream, 'whole');
    const provider = createProvider({
      name: 'test',
      api: 'openai-responses',
      baseUrl: url,
      headers: {},
      headersTimeoutMs: 5000,
      idleTimeoutMs: 5000,
      retry: DEFAULT_RETRY,
    });
    return provider.complete(REQUEST);
  }

  it('change nothing in the answer', async () => {
    const response = await complete(body(data(completed, 'response.completed')));
    expect(response.content).toEqual([{ type: 'text', text: 'hello' }]);
    expect(response.usage.outputTokens).toBe(9);
  });

  it('are read by the type their data says, whatever the event name', async () => {
    const response = await complete(body(data(completed, 'response.output_text.done')));
    expect(response.stopReason).toBe('end_turn');
    expect(response.model).toBe('m-1');
  });
});

describe('a stream whose deltas differ in a random field', () => {
  it('reads every delta exactly, as OpenAI streams with `obfuscation` do', async () => {
    const texts = Array.from({ length: 40 }, (_, i) => (i % 7 === 3 ? `"q${i}"\\` : `t${i} `));
    const data = (value: Record<string, unknown>, event: string) =>
      `event: ${event}\ndata: ${JSON.stringify(value)}\n\n`;
    const stream = [
      data(
        { type: 'response.output_item.added', output_index: 0, item: { id: 'msg', type: 'message', content: [] } },
        'response.output_item.added',
      ),
      ...texts.map((delta, i) =>
        data(
          {
            type: 'response.output_text.delta',
            sequence_number: i + 1,
            item_id: 'msg',
            output_index: 0,
            content_index: 0,
            delta,
            obfuscation: Math.random()
              .toString(36)
              .slice(2, 2 + (i % 5)),
          },
          'response.output_text.delta',
        ),
      ),
      data(
        {
          type: 'response.completed',
          response: { model: 'm-1', status: 'completed', usage: { input_tokens: 3, output_tokens: 9 } },
        },
        'response.completed',
      ),
    ].join('');
    for (const cut of CUTS) {
      const url = await sse(stream, cut);
      const provider = createProvider({
        name: 'test',
        api: 'openai-responses',
        baseUrl: url,
        headers: {},
        headersTimeoutMs: 5000,
        idleTimeoutMs: 5000,
        retry: DEFAULT_RETRY,
      });
      const deltas: string[] = [];
      const response = await provider.complete(REQUEST, { sink: { text: (d) => deltas.push(d) } });
      expect(deltas).toEqual(texts);
      expect(response.content).toEqual([{ type: 'text', text: texts.join('') }]);
      server?.closeAllConnections();
      await new Promise((r) => server!.close(r));
      server = undefined;
    }
  });
});
