import { afterEach, describe, expect, it } from 'vitest';
import { ModelError, ModelHttpError, type ModelRequest, type ProviderApi } from '../../../engine/agent/index.js';
import type { ModelServer } from '../../../engine/model-server/index.js';
import { APIS, providerFor, serve } from '../../fixtures/agent/servers.js';

let server: ModelServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const REQUEST: ModelRequest = {
  model: 'test-model',
  system: '',
  messages: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }],
  tools: [{ name: 'noop', description: 'nothing', inputSchema: { type: 'object' } }],
  maxOutputTokens: 100,
};

const NAME: Record<ProviderApi, string> = {
  anthropic: 'anthropic',
  'openai-responses': 'local',
  'openai-chat': 'local',
  gemini: 'gemini',
};

/** The error line each API's body produces, per status. */
const LINES: Record<ProviderApi, Record<number, string>> = {
  anthropic: {
    400: 'anthropic 400 invalid_request_error: bad request body',
    401: 'anthropic 401 authentication_error: invalid key (check TEST_KEY)',
    403: 'anthropic 403 permission_error: no access (check TEST_KEY)',
    404: 'anthropic 404 not_found_error: no such model',
    429: 'anthropic 429 rate_limit_error: slow down',
    500: 'anthropic 500 api_error: boom',
    529: 'anthropic 529 overloaded_error: busy',
  },
  'openai-responses': {
    400: 'local 400 invalid_request_error: bad request body',
    401: 'local 401 invalid_request_error: invalid key (check TEST_KEY)',
    403: 'local 403 invalid_request_error: no access (check TEST_KEY)',
    404: 'local 404 invalid_request_error: no such model',
    429: 'local 429 rate_limit_error: slow down',
    500: 'local 500 server_error: boom',
    529: 'local 529 server_error: busy',
  },
  'openai-chat': {} as Record<number, string>,
  gemini: {
    400: 'gemini 400 INVALID_ARGUMENT: bad request body',
    401: 'gemini 401 UNAUTHENTICATED: invalid key (check TEST_KEY)',
    403: 'gemini 403 PERMISSION_DENIED: no access (check TEST_KEY)',
    404: 'gemini 404 NOT_FOUND: no such model',
    429: 'gemini 429 RESOURCE_EXHAUSTED: slow down',
    500: 'gemini 500 INTERNAL: boom',
    529: 'gemini 529 INTERNAL: busy',
  },
};
LINES['openai-chat'] = LINES['openai-responses'];

const MESSAGES: Record<number, string> = {
  400: 'bad request body',
  401: 'invalid key',
  403: 'no access',
  404: 'no such model',
  429: 'slow down',
  500: 'boom',
  529: 'busy',
};

describe.each(APIS)('%s faults', (api) => {
  it.each([400, 401, 403, 404])('fails a %i at once with one line and no retry', async (status) => {
    server = await serve({ turns: [{ error: { status, message: MESSAGES[status] } }, { text: 'never' }] });
    const { provider, waits } = providerFor(server, api, { credentialEnv: 'TEST_KEY' });
    const error = (await provider.complete(REQUEST).catch((e: unknown) => e)) as ModelHttpError;
    expect(error).toBeInstanceOf(ModelHttpError);
    expect(error.message).toBe(LINES[api][status]);
    expect(error.status).toBe(status);
    expect(error.retryable).toBe(false);
    // The raw body stays on the error for debug logs, never in its JSON form.
    expect(error.rawBody).toContain(MESSAGES[status]);
    expect(JSON.stringify(error)).not.toContain('rawBody');
    expect(waits).toEqual([]);
    expect(server.requests).toHaveLength(1);
  });

  it.each([429, 500, 529])('retries a %i, then gives up with its line', async (status) => {
    server = await serve({ turns: [{ error: { status, message: MESSAGES[status] }, times: 'always' }] });
    const { provider, waits } = providerFor(server, api);
    const error = (await provider.complete(REQUEST).catch((e: unknown) => e)) as ModelHttpError;
    expect(error.message).toBe(LINES[api][status]);
    expect(error.retryable).toBe(true);
    expect(server.requests).toHaveLength(3);
    // Exponential backoff (jitter pinned): 1s, then 2s.
    expect(waits).toEqual([1000, 2000]);
  });

  it('honours Retry-After and succeeds on the retry', async () => {
    server = await serve({
      turns: [{ error: { status: 429, message: 'slow down', retryAfter: 7 } }, { text: 'finally' }],
    });
    const { provider, waits } = providerFor(server, api);
    const response = await provider.complete(REQUEST);
    expect(response.content).toEqual([{ type: 'text', text: 'finally' }]);
    expect(waits).toEqual([7000]);
  });

  it('cancels a stream that stalls mid-body on the idle timer, without retrying', async () => {
    server = await serve({
      turns: [{ text: 'a long answer that stops', chunk: 2, stall: { afterEvents: 2 } }, { text: 'never' }],
    });
    const { provider, waits } = providerFor(server, api, { idleTimeoutMs: 300 });
    const deltas: string[] = [];
    const error = (await provider
      .complete(REQUEST, { sink: { text: (d) => deltas.push(d) } })
      .catch((e: unknown) => e)) as ModelError;
    expect(error).toBeInstanceOf(ModelError);
    expect(error.code).toBe('MODEL_STREAM_STALLED');
    expect(error.message).toBe(`${NAME[api]}: stream stalled: no data for 300ms`);
    expect(error.retryable).toBe(false);
    expect(waits).toEqual([]);
    expect(server.requests).toHaveLength(1);
    // The request was cancelled: the server saw the client leave.
    for (let i = 0; i < 200 && server.requests[0]!.aborted !== true; i++) await new Promise((r) => setTimeout(r, 10));
    expect(server.requests[0]!.aborted).toBe(true);
  });

  it('bounds the wait for response headers, without retrying', async () => {
    server = await serve({ turns: [{ text: 'late', delay: '5s' }] });
    const { provider, waits } = providerFor(server, api, { headersTimeoutMs: 200 });
    const error = (await provider.complete(REQUEST).catch((e: unknown) => e)) as ModelError;
    expect(error.code).toBe('MODEL_TIMEOUT');
    expect(error.message).toBe(`${NAME[api]}: no response headers after 200ms`);
    expect(waits).toEqual([]);
  });

  it('stops when the caller aborts mid-stream', async () => {
    server = await serve({ turns: [{ text: 'slow text', chunk: 1, pace: '200ms' }] });
    const { provider } = providerFor(server, api);
    const controller = new AbortController();
    const error = (await provider
      .complete(REQUEST, { signal: controller.signal, sink: { text: () => controller.abort() } })
      .catch((e: unknown) => e)) as { code: string };
    expect(error.code).toBe('AGENT_INTERRUPTED');
  });
});

describe('transport errors', () => {
  it('retries a refused connection, then fails with the cause', async () => {
    server = await serve({ turns: [{ text: 'x' }] });
    const url = server.url;
    await server.close();
    server = undefined;
    const { createProvider, DEFAULT_RETRY } = await import('../../../engine/agent/index.js');
    const waits: number[] = [];
    const provider = createProvider({
      name: 'anthropic',
      api: 'anthropic',
      baseUrl: url,
      headers: {},
      headersTimeoutMs: 2000,
      idleTimeoutMs: 2000,
      retry: { ...DEFAULT_RETRY, maxRetries: 2 },
      hooks: { sleep: async (ms) => void waits.push(ms), random: () => 1 },
    });
    const error = (await provider.complete(REQUEST).catch((e: unknown) => e)) as ModelError;
    expect(error.code).toBe('MODEL_TRANSPORT_ERROR');
    expect(error.message).toMatch(/^anthropic: connection failed: .*ECONNREFUSED/);
    expect(waits).toEqual([1000, 2000]);
  });
});
