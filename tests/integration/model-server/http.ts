import { startModelServer, type ModelScript, type ModelServer } from '../../../engine/model-server/index.js';

const servers: ModelServer[] = [];

/** A server with deterministic ids (`t_<seq>`) and clock, closed by {@link closeAll}. */
export async function serve(
  script: ModelScript,
  extra: { log?: string; vars?: Record<string, string> } = {},
): Promise<ModelServer> {
  const server = await startModelServer({ script, nonce: 't', clock: () => 1_700_000_000_000, ...extra });
  servers.push(server);
  return server;
}

export async function closeAll(): Promise<void> {
  while (servers.length > 0) await servers.pop()!.close();
}

/** POSTs JSON and returns status, headers and the full body text. */
export async function post(url: string, body: unknown, headers: Record<string, string> = {}) {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
  return { status: response.status, headers: response.headers, text: await response.text() };
}

/** Reads a streamed body until `predicate` holds for the text so far; returns the reader for more. */
export async function readUntil(response: Response, predicate: (text: string) => boolean) {
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  let text = '';
  while (!predicate(text)) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`stream ended before the expected text; got:\n${text}`);
    text += decoder.decode(value, { stream: true });
  }
  return { text, reader };
}

/** Request bodies in each API's shape offering one `Write` tool. */
export const REQUESTS = {
  anthropic: (extra: Record<string, unknown> = {}) => ({
    model: 'm-1',
    stream: true,
    max_tokens: 100,
    tools: [{ name: 'Write', input_schema: { type: 'object' } }],
    messages: [{ role: 'user', content: 'go' }],
    ...extra,
  }),
  responses: (extra: Record<string, unknown> = {}) => ({
    model: 'm-1',
    stream: true,
    tools: [{ type: 'function', name: 'Write', parameters: {} }],
    input: [{ type: 'message', role: 'user', content: [{ type: 'input_text', text: 'go' }] }],
    ...extra,
  }),
  chat: (extra: Record<string, unknown> = {}) => ({
    model: 'm-1',
    stream: true,
    stream_options: { include_usage: true },
    tools: [{ type: 'function', function: { name: 'Write', parameters: {} } }],
    messages: [{ role: 'user', content: 'go' }],
    ...extra,
  }),
  gemini: (extra: Record<string, unknown> = {}) => ({
    tools: [{ functionDeclarations: [{ name: 'Write' }] }],
    contents: [{ role: 'user', parts: [{ text: 'go' }] }],
    ...extra,
  }),
};

export const PATHS = {
  anthropic: '/v1/messages?beta=true',
  responses: '/v1/responses',
  chat: '/v1/chat/completions',
  gemini: '/v1beta/models/m-1:streamGenerateContent?alt=sse',
} as const;
