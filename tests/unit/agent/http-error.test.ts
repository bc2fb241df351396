import { describe, expect, it } from 'vitest';
import { httpErrorLine, retryAfterMs, SseDecoder } from '../../../engine/agent/index.js';

describe('error lines from provider bodies', () => {
  it('reads the Anthropic shape and names the credential on 401', () => {
    const body = JSON.stringify({
      type: 'error',
      error: { type: 'authentication_error', message: 'invalid x-api-key' },
    });
    expect(httpErrorLine('anthropic', 401, body, { credentialEnv: 'ANTHROPIC_API_KEY' })).toEqual({
      line: 'anthropic 401 authentication_error: invalid x-api-key (check ANTHROPIC_API_KEY)',
      errorType: 'authentication_error',
    });
  });

  it('reads the OpenAI shape (type over code)', () => {
    const body = JSON.stringify({
      error: { message: 'Rate limit reached', type: 'requests', code: 'rate_limit_exceeded', param: null },
    });
    expect(httpErrorLine('openai', 429, body).line).toBe('openai 429 requests: Rate limit reached');
  });

  it('reads the Gemini shape (status), also wrapped in an array', () => {
    const body = JSON.stringify([
      { error: { code: 403, message: 'API key not valid.\nPlease pass a valid key.', status: 'PERMISSION_DENIED' } },
    ]);
    expect(httpErrorLine('gemini', 403, body, { credentialEnv: 'GEMINI_API_KEY' }).line).toBe(
      'gemini 403 PERMISSION_DENIED: API key not valid. Please pass a valid key. (check GEMINI_API_KEY)',
    );
  });

  it('reads a bare string error (Ollama, llama.cpp)', () => {
    expect(httpErrorLine('ollama', 404, '{"error":"model \\"qwen\\" not found"}').line).toBe(
      'ollama 404: model "qwen" not found',
    );
  });

  it('trims an unparseable body to a one-line excerpt', () => {
    const body = `<html>\n<body>${'x'.repeat(400)}</body></html>`;
    const { line } = httpErrorLine('openrouter', 502, body);
    expect(line.startsWith('openrouter 502: <html> <body>xxx')).toBe(true);
    expect(line.length).toBe('openrouter 502: '.length + 200);
    expect(line.endsWith('…')).toBe(true);
  });

  it('falls back to the status text for an empty body', () => {
    expect(httpErrorLine('anthropic', 503, '', { statusText: 'Service Unavailable' }).line).toBe(
      'anthropic 503 Service Unavailable',
    );
  });

  it('adds no credential hint to other statuses', () => {
    expect(
      httpErrorLine('anthropic', 400, '{"error":{"type":"invalid_request_error","message":"bad"}}', {
        credentialEnv: 'K',
      }).line,
    ).toBe('anthropic 400 invalid_request_error: bad');
  });

  it('reads Retry-After as seconds, as a date, and retry-after-ms first', () => {
    expect(retryAfterMs({ 'retry-after': '7' })).toBe(7000);
    expect(retryAfterMs({ 'retry-after': '7', 'retry-after-ms': '1500' })).toBe(1500);
    expect(retryAfterMs({ 'retry-after': new Date(10_000).toUTCString() }, 4_000)).toBe(6000);
    expect(retryAfterMs({})).toBeUndefined();
    expect(retryAfterMs({ 'retry-after': 'soon' })).toBeUndefined();
  });
});

describe('SSE decoding', () => {
  it('joins events split across chunks and line-end styles', () => {
    const decoder = new SseDecoder();
    const events = [
      ...decoder.push('event: a\r'),
      ...decoder.push('\ndata: {"x":'),
      ...decoder.push('1}\r\n\r\n: comment\n\ndata: line1\ndata: line2\n'),
      ...decoder.push('\nevent: b\ndata:no-space\n\n'),
      ...decoder.push('data: tail'),
      ...decoder.end(),
    ];
    expect(events).toEqual([
      { event: 'a', data: '{"x":1}' },
      { event: '', data: 'line1\nline2' },
      { event: 'b', data: 'no-space' },
      { event: '', data: 'tail' },
    ]);
  });
});
