import { describe, expect, it } from 'vitest';
import {
  anthropicBody,
  capText,
  chatBody,
  geminiBody,
  ModelHttpError,
  openWithRetry,
  responsesBody,
  Secret,
  secretRedactor,
  type Message,
  type ModelRequest,
} from '../../../engine/agent/index.js';
import { bodyJson } from '../../../engine/agent/providers/http-call.js';

const reasoning = (
  api: 'anthropic' | 'openai-responses' | 'gemini',
  data: Record<string, unknown>,
  text = 'thought',
) => ({ type: 'reasoning' as const, text, replay: { api, data } });

function request(messages: Message[], extra: Partial<ModelRequest> = {}): ModelRequest {
  return { model: 'm', system: 's', messages, tools: [], maxOutputTokens: 100, ...extra };
}

describe('reasoning replay', () => {
  const transcript: Message[] = [
    { role: 'user', content: [{ type: 'text', text: 'q' }] },
    {
      role: 'assistant',
      content: [
        reasoning('anthropic', { signature: 'sig-a' }),
        reasoning('anthropic', { redacted: 'opaque' }, ''),
        reasoning('openai-responses', {
          encrypted_content: 'enc',
          summary: [{ type: 'summary_text', text: 'thought' }],
        }),
        reasoning('gemini', { thoughtSignature: 'sig-g' }),
        { type: 'text', text: 'answer' },
      ],
    },
  ];

  it('sends each API only its own reasoning, with its replay data', () => {
    expect((anthropicBody(request(transcript)).messages as Message[])[1]).toEqual({
      role: 'assistant',
      content: [
        { type: 'thinking', thinking: 'thought', signature: 'sig-a' },
        { type: 'redacted_thinking', data: 'opaque' },
        { type: 'text', text: 'answer' },
      ],
    });
    expect((responsesBody(request(transcript)).input as unknown[]).slice(1)).toEqual([
      { type: 'reasoning', summary: [{ type: 'summary_text', text: 'thought' }], encrypted_content: 'enc' },
      { role: 'assistant', content: [{ type: 'output_text', text: 'answer' }] },
    ]);
    expect((geminiBody(request(transcript)).contents as unknown[])[1]).toEqual({
      role: 'model',
      parts: [{ text: 'thought', thought: true, thoughtSignature: 'sig-g' }, { text: 'answer' }],
    });
    expect((chatBody(request(transcript)).messages as unknown[])[2]).toEqual({ role: 'assistant', content: 'answer' });
  });

  it('maps effort to each API’s reasoning setting', () => {
    const q: Message[] = [{ role: 'user', content: [{ type: 'text', text: 'q' }] }];
    expect(anthropicBody(request(q, { effort: 'medium' }))).toMatchObject({
      thinking: { type: 'enabled', budget_tokens: 8192 },
      max_tokens: 12288,
    });
    expect(responsesBody(request(q, { effort: 'max' }))).toMatchObject({
      reasoning: { effort: 'high', summary: 'auto' },
      include: ['reasoning.encrypted_content'],
    });
    expect(chatBody(request(q, { effort: 'low' }))).toMatchObject({ reasoning_effort: 'low' });
    expect(geminiBody(request(q, { effort: 'high' }))).toMatchObject({
      generationConfig: { maxOutputTokens: 100, thinkingConfig: { thinkingBudget: 16384, includeThoughts: true } },
    });
  });
});

describe('retry policy edges', () => {
  it('gives up at once when Retry-After asks for longer than the policy allows', async () => {
    const { createServer } = await import('node:http');
    let hits = 0;
    const server = createServer((req, res) => {
      hits++;
      req.resume();
      res.writeHead(429, { 'content-type': 'application/json', 'retry-after': '3600' });
      res.end('{"error":{"type":"rate_limit_error","message":"come back in an hour"}}');
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    try {
      const port = (server.address() as { port: number }).port;
      const waits: number[] = [];
      const error = await openWithRetry(
        {
          provider: 'anthropic',
          url: `http://127.0.0.1:${port}/v1/messages`,
          headers: {},
          body: '{}',
          headersTimeoutMs: 5000,
          idleTimeoutMs: 5000,
        },
        { maxRetries: 3, baseDelayMs: 1, maxDelayMs: 10, maxRetryAfterMs: 60_000 },
        { sleep: async (ms) => void waits.push(ms) },
      ).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ModelHttpError);
      expect((error as ModelHttpError).retryAfterMs).toBe(3_600_000);
      expect((error as Error).message).toBe('anthropic 429 rate_limit_error: come back in an hour');
      expect(waits).toEqual([]);
      expect(hits).toBe(1);
    } finally {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    }
  });
});

describe('capping and redaction', () => {
  it('cuts on UTF-8 character boundaries', () => {
    const text = 'é'.repeat(100); // 200 bytes
    const capped = capText(text, 51);
    expect(capped).toBe(`${'é'.repeat(17)}\n[… 150 bytes omitted …]\n${'é'.repeat(8)}`);
    expect(capText('short', 10)).toBe('short');
  });

  it('replaces every occurrence of a secret value with its reference, ignoring short values', () => {
    const redact = secretRedactor([new Secret('API_KEY', 'sk-abcdef123'), new Secret('PIN', '1234')]);
    expect(redact('key sk-abcdef123 and again sk-abcdef123; pin 1234')).toBe(
      'key [redacted ${API_KEY}] and again [redacted ${API_KEY}]; pin 1234',
    );
  });
});

describe('request bodies', () => {
  const tools = [
    {
      name: 'read_file',
      description: 'Reads a file',
      inputSchema: { type: 'object', properties: { path: { type: 'string' } } },
    },
  ];
  const question: Message[] = [{ role: 'user', content: [{ type: 'text', text: 'q' }] }];
  const later: Message[] = [
    ...question,
    { role: 'assistant', content: [{ type: 'text', text: 'a' }] },
    { role: 'user', content: [{ type: 'text', text: 'more' }] },
  ];

  it.each([anthropicBody, chatBody, responsesBody, geminiBody])(
    'maps one tool list once and serializes it as JSON.stringify would (%o)',
    (build) => {
      const first = build(request(question, { tools }));
      const next = build(request(later, { tools }));
      expect(next.tools).toBe(first.tools);
      expect(build(request(question, { tools: [...tools] })).tools).not.toBe(first.tools);
      for (const body of [first, next]) expect(JSON.parse(bodyJson(body))).toEqual(JSON.parse(JSON.stringify(body)));
      expect(bodyJson(next)).toContain('"more"');
    },
  );

  it('serializes bodies without tools, or with only tools', () => {
    expect(bodyJson({ model: 'm', stream: true })).toBe('{"model":"m","stream":true}');
    expect(bodyJson({ tools: [] })).toBe('{"tools":[]}');
    expect(bodyJson({})).toBe('{}');
  });
});
