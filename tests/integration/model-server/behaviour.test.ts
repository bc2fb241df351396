import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import { startModelServer } from '../../../engine/model-server/index.js';
import { parseJsonl } from '../../../engine/util/jsonl.js';
import { tempDir } from '../../helpers/temp.js';
import { closeAll, PATHS, post, readUntil, REQUESTS, serve } from './http.js';

afterEach(closeAll);

describe('errors', () => {
  it("answers a scripted error with its status in the API's error shape, then the next turn", async () => {
    const server = await serve({ turns: [{ error: { status: 500, message: 'boom' } }, { text: 'recovered' }] });
    const first = await post(server.url + PATHS.anthropic, REQUESTS.anthropic());
    expect(first.status).toBe(500);
    expect(JSON.parse(first.text)).toEqual({ type: 'error', error: { type: 'api_error', message: 'boom' } });
    expect(first.headers.get('retry-after')).toBeNull();
    const second = await post(server.url + PATHS.anthropic, REQUESTS.anthropic({ stream: false }));
    expect(JSON.parse(second.text).content).toEqual([{ type: 'text', text: 'recovered' }]);
    expect(server.requests.map((r) => [r.turn, r.reply?.status])).toEqual([
      [0, 500],
      [1, 200],
    ]);
  });

  it('429 carries Retry-After (seconds, rounded up) and retry-after-ms', async () => {
    const server = await serve({ turns: [{ error: { status: 429, retryAfter: 1.5 } }] });
    const response = await post(server.url + PATHS.chat, REQUESTS.chat());
    expect(response.status).toBe(429);
    expect(response.headers.get('retry-after')).toBe('2');
    expect(response.headers.get('retry-after-ms')).toBe('1500');
    expect(JSON.parse(response.text)).toEqual({
      error: { message: 'scripted error 429', type: 'rate_limit_error', param: null, code: 'rate_limit_exceeded' },
    });
  });

  it('a body that is not JSON gets a 400 and takes no turn', async () => {
    const server = await serve({ turns: [{ text: 'x' }] });
    const response = await fetch(server.url + PATHS.responses, { method: 'POST', body: 'not json' });
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({
      error: {
        message: 'the request body must be a JSON object',
        type: 'invalid_request_error',
        param: null,
        code: null,
      },
    });
    expect(server.state().used).toEqual([0]);
  });
});

describe('stall', () => {
  it('sends the first content fragment, then holds the stream silent until the server closes', async () => {
    const server = await serve({ turns: [{ text: 'Hi there!', chunk: 4, stall: true }] });
    const response = await fetch(server.url + PATHS.anthropic, {
      method: 'POST',
      body: JSON.stringify(REQUESTS.anthropic()),
    });
    const { text, reader } = await readUntil(response, (t) => t.includes('"text":"Hi t"'));
    expect(text).not.toContain('here');
    const pending = reader.read();
    // A whole other exchange completes while the stalled stream stays silent.
    const aux = await post(server.url + PATHS.chat, REQUESTS.chat({ tools: [] }));
    expect(aux.status).toBe(200);
    const sentinel = Symbol('still pending');
    expect(await Promise.race([pending, new Promise((resolve) => setImmediate(() => resolve(sentinel)))])).toBe(
      sentinel,
    );
    expect(server.requests[0]!.reply).toEqual({ kind: 'reply', status: 200, text: 'Hi there!', stall: true });
    await server.close();
    await expect(pending).rejects.toThrow();
    expect(server.requests[0]!.aborted).toBe(true);
  });

  it('afterEvents: 0 sends only the headers; a non-streamed stall never answers', async () => {
    const server = await serve({
      turns: [
        { text: 'x', stall: { afterEvents: 0 } },
        { text: 'y', stall: true },
      ],
    });
    const streamed = await fetch(server.url + PATHS.responses, {
      method: 'POST',
      body: JSON.stringify(REQUESTS.responses()),
    });
    expect(streamed.status).toBe(200);
    const read = streamed.body!.getReader().read();
    const plain = fetch(server.url + PATHS.chat, {
      method: 'POST',
      body: JSON.stringify(REQUESTS.chat({ stream: false })),
    });
    await server.waitForRequest((r) => r.seq === 2);
    await server.close();
    await expect(read).rejects.toThrow();
    await expect(plain).rejects.toThrow();
  });

  it('a client that leaves mid-stall is marked aborted', async () => {
    const server = await serve({ turns: [{ text: 'abc', stall: true }] });
    const controller = new AbortController();
    const response = await fetch(server.url + PATHS.chat, {
      method: 'POST',
      body: JSON.stringify(REQUESTS.chat()),
      signal: controller.signal,
    });
    await readUntil(response, (t) => t.includes('"content":"abc"'));
    controller.abort();
    await expect.poll(() => server.requests[0]!.aborted).toBe(true);
  });
});

describe('auxiliary requests', () => {
  it('a request that offers no tools is answered with the aux text and takes no turn', async () => {
    const server = await serve({ aux: { text: 'Scripted title' }, turns: [{ text: 'main reply' }] });
    const aux = await post(server.url + PATHS.chat, REQUESTS.chat({ tools: undefined, stream: false }));
    expect(JSON.parse(aux.text).choices[0].message.content).toBe('Scripted title');
    expect(server.state()).toEqual({ used: [0], next: 0, unmatched: 0 });
    const main = await post(server.url + PATHS.chat, REQUESTS.chat({ stream: false }));
    expect(JSON.parse(main.text).choices[0].message.content).toBe('main reply');
    expect(server.requests.map((r) => r.role)).toEqual(['aux', 'main']);
  });

  it("Claude Code's title request (json_schema output) gets JSON that fits the schema", async () => {
    const server = await serve({ aux: { text: 'Fix the bug' }, turns: [] });
    const body = {
      model: 'haiku',
      stream: false,
      messages: [{ role: 'user', content: 'title?' }],
      output_config: {
        format: {
          type: 'json_schema',
          schema: { type: 'object', properties: { title: { type: 'string' } }, required: ['title'] },
        },
      },
    };
    const response = await post(server.url + PATHS.anthropic, body);
    expect(JSON.parse(JSON.parse(response.text).content[0].text)).toEqual({ title: 'Fix the bug' });
  });

  it('with aux.detect: never, a tool-less request takes the next turn', async () => {
    const server = await serve({ aux: { detect: 'never' }, turns: [{ text: 'turn one' }] });
    const response = await post(server.url + PATHS.chat, REQUESTS.chat({ tools: [], stream: false }));
    expect(JSON.parse(response.text).choices[0].message.content).toBe('turn one');
  });
});

describe('rules: a different reply after a tool result', () => {
  it('branches on a denied tool result (Anthropic, as Claude Code sends it)', async () => {
    const script = {
      turns: [
        { tools: [{ name: 'Write', arguments: { file_path: '/r/a' } }] },
        { when: { toolResult: { isError: true } }, text: 'The write was denied.' },
        { when: { toolResult: { isError: false } }, text: 'Written.' },
      ],
    };
    const server = await serve(script);
    const first = JSON.parse((await post(server.url + PATHS.anthropic, REQUESTS.anthropic({ stream: false }))).text);
    const call = first.content[0];
    expect(call).toEqual({ type: 'tool_use', id: 'toolu_t_1_0', name: 'Write', input: { file_path: '/r/a' } });
    const messages = [
      { role: 'user', content: 'go' },
      { role: 'assistant', content: [call] },
      {
        role: 'user',
        content: [{ type: 'tool_result', tool_use_id: call.id, content: 'denied by host', is_error: true }],
      },
    ];
    const second = JSON.parse(
      (await post(server.url + PATHS.anthropic, REQUESTS.anthropic({ stream: false, messages }))).text,
    );
    expect(second.content).toEqual([{ type: 'text', text: 'The write was denied.' }]);
    expect(server.state()).toEqual({ used: [1, 1, 0], next: 2, unmatched: 0 });
  });

  it('fills {{cwd}} from the working directory the prompt announces', async () => {
    const server = await serve({
      turns: [{ tools: [{ name: 'Write', arguments: { file_path: '{{cwd}}/hello.txt' } }] }],
    });
    const body = REQUESTS.anthropic({
      stream: false,
      system: [{ type: 'text', text: 'Primary working directory: /tmp/repo-1' }],
    });
    const reply = JSON.parse((await post(server.url + PATHS.anthropic, body)).text);
    expect(reply.content[0].input).toEqual({ file_path: '/tmp/repo-1/hello.txt' });
  });

  it('an exhausted script answers with the fallback text and counts it', async () => {
    const server = await serve({ turns: [] });
    const reply = JSON.parse((await post(server.url + PATHS.chat, REQUESTS.chat({ stream: false }))).text);
    expect(reply.choices[0].message.content).toBe(
      'neo model server: the script has no turn left that matches this request.',
    );
    expect(server.requests[0]!.fallback).toBe(true);
    expect(server.state().unmatched).toBe(1);
  });
});

describe('request log', () => {
  it('logs every request with secrets redacted, in memory and to JSONL', async () => {
    const dir = await tempDir();
    const file = join(dir, 'requests.jsonl');
    const server = await serve({ turns: [{ text: 'a', tools: [{ name: 'Nope' }] }] }, { log: file });
    await post(server.url + PATHS.anthropic, REQUESTS.anthropic({ stream: false }), {
      'x-api-key': 'sk-ant-secret',
      authorization: 'Bearer sk-x',
      'anthropic-version': '2023-06-01',
    });
    await fetch(`${server.url}/v1beta/models?key=AIza-secret`);
    await fetch(`${server.url}/nowhere`);
    const [first, second, third] = server.requests;
    expect(first).toMatchObject({
      seq: 1,
      method: 'POST',
      path: '/v1/messages',
      query: { beta: 'true' },
      role: 'main',
      api: 'anthropic',
      model: 'm-1',
      stream: false,
      toolsOffered: ['Write'],
      turn: 0,
      reply: { kind: 'reply', status: 200, text: 'a', tools: ['Nope'] },
      warnings: ['tool "Nope" is not offered by this request (offered: Write)'],
    });
    expect(first!.headers['x-api-key']).toBe('[redacted]');
    expect(first!.headers.authorization).toBe('[redacted]');
    expect(first!.headers['anthropic-version']).toBe('2023-06-01');
    expect((first!.body as { messages: unknown[] }).messages).toEqual([{ role: 'user', content: 'go' }]);
    expect(second).toMatchObject({
      role: 'other',
      path: '/v1beta/models',
      query: { key: '[redacted]' },
      reply: { status: 200 },
    });
    expect(third).toMatchObject({ role: 'other', path: '/nowhere', reply: { kind: 'error', status: 404 } });
    await server.close();
    const text = await readFile(file, 'utf8');
    expect(text).not.toContain('sk-ant-secret');
    expect(text).not.toContain('AIza-secret');
    const { records, badLines } = parseJsonl<{ seq: number; path: string }>(text);
    expect(badLines).toEqual([]);
    expect(records.map((r) => [r.seq, r.path])).toEqual([
      [1, '/v1/messages'],
      [2, '/v1beta/models'],
      [3, '/nowhere'],
    ]);
  });

  it('waitForRequest resolves on a later request', async () => {
    const server = await serve({ turns: [{ text: 'x' }] });
    const waiting = server.waitForRequest((r) => r.role === 'main');
    await post(server.url + PATHS.chat, REQUESTS.chat());
    expect((await waiting).seq).toBe(1);
  });
});

describe('auxiliary endpoints', () => {
  it('HEAD / preflight, model lists in OpenAI/Anthropic and Gemini shapes, token counts, state', async () => {
    const server = await serve({ models: ['gpt-5.5', 'claude-x'], turns: [{ text: 'x' }] });
    expect((await fetch(server.url, { method: 'HEAD' })).status).toBe(200);
    expect(await (await fetch(`${server.url}/v1/models`)).json()).toMatchObject({
      object: 'list',
      data: [{ id: 'gpt-5.5', object: 'model', type: 'model' }, { id: 'claude-x' }],
      has_more: false,
      first_id: 'gpt-5.5',
      last_id: 'claude-x',
    });
    expect(await (await fetch(`${server.url}/v1beta/models`)).json()).toMatchObject({
      models: [{ name: 'models/gpt-5.5' }, { name: 'models/claude-x' }],
    });
    expect(await (await fetch(`${server.url}/v1/models/gpt-5.5`)).json()).toMatchObject({ id: 'gpt-5.5' });
    const count = await post(`${server.url}/v1/messages/count_tokens`, {
      messages: [{ role: 'user', content: 'abcdefgh' }],
    });
    expect(JSON.parse(count.text).input_tokens).toBeGreaterThan(0);
    expect(await (await fetch(`${server.url}/_neo/state`)).json()).toEqual({
      turns: { used: [0], next: 0, unmatched: 0 },
      requests: 5,
    });
    expect(server.state().used).toEqual([0]);
  });

  it('accepts a gzip-compressed request body', async () => {
    const server = await serve({ turns: [{ text: 'zipped' }] });
    const response = await fetch(server.url + PATHS.chat, {
      method: 'POST',
      headers: { 'content-encoding': 'gzip' },
      body: gzipSync(JSON.stringify(REQUESTS.chat({ stream: false }))),
    });
    expect(
      ((await response.json()) as { choices: Array<{ message: { content: string } }> }).choices[0]!.message.content,
    ).toBe('zipped');
  });

  it('refuses to bind anything but loopback', async () => {
    await expect(startModelServer({ script: { turns: [] }, host: '0.0.0.0' })).rejects.toMatchObject({
      code: 'MODEL_HOST_NOT_LOOPBACK',
    });
  });

  it("setScript starts a new script's turns afresh", async () => {
    const server = await serve({ turns: [{ text: 'one' }] });
    server.setScript({ turns: [{ text: 'two' }] });
    const reply = JSON.parse((await post(server.url + PATHS.chat, REQUESTS.chat({ stream: false }))).text);
    expect(reply.choices[0].message.content).toBe('two');
  });
});
