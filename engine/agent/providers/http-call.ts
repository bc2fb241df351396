/** The shared HTTP half of every adapter: open with retries, then read SSE or JSON. */
import { streamError } from '../errors.js';
import { openWithRetry } from '../http/retry.js';
import { SseDecoder, type SseListener } from '../http/sse.js';
import type { OpenResponse } from '../http/stream-request.js';
import type { HttpProviderConfig } from './provider.js';
import { defined } from '../../util/defined.js';
import { memoByIdentity } from '../../util/memo-by-identity.js';
import { asRecord } from '../../util/json-shape.js';

/** POSTs `body` to `url` under the config's timeouts and retry policy. */
export function openCall(
  config: HttpProviderConfig,
  url: string,
  headers: Record<string, string>,
  body: Record<string, unknown>,
  signal?: AbortSignal,
): Promise<OpenResponse> {
  return openWithRetry(
    {
      provider: config.name,
      url,
      headers: { 'content-type': 'application/json', accept: 'text/event-stream', ...headers, ...config.headers },
      body: bodyJson(body),
      headersTimeoutMs: config.headersTimeoutMs,
      idleTimeoutMs: config.idleTimeoutMs,
      ...defined({ signal }),
    },
    config.retry,
    { ...defined({ credentialEnv: config.credentialEnv }), ...config.hooks },
  );
}

/**
 * The loop sends one tool list (the same array) on every call of a session, so each adapter maps
 * it to its wire shape once (`memoByIdentity`) and {@link bodyJson} serializes that once too: the
 * schemas are most of a request body.
 */
const toolsJson = memoByIdentity((tools: object) => JSON.stringify(tools));

/** `JSON.stringify(body)`, with a `tools` value serialized once per (memoized) wire array. */
export function bodyJson(body: Record<string, unknown>): string {
  const { tools, ...rest } = body;
  if (tools === null || typeof tools !== 'object') return JSON.stringify(body);
  const head = JSON.stringify(rest);
  return `${head.slice(0, -1)}${head === '{}' ? '' : ','}"tools":${toolsJson(tools)}}`;
}

/**
 * Calls `onEvent` with each SSE event's data (and `event:` name) of the body, in order,
 * synchronously as chunks arrive. An exception it throws cancels the request and rejects.
 */
export async function readSse(response: OpenResponse, onEvent: SseListener): Promise<void> {
  const decoder = new SseDecoder();
  await response.consume((chunk) => decoder.decode(chunk, onEvent));
  decoder.finish(onEvent);
}

/** Parses one event's JSON data; a malformed payload is a permanent stream error. */
export function parseData(provider: string, data: string, event = ''): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(data);
    if (value !== null && typeof value === 'object' && !Array.isArray(value)) return value as Record<string, unknown>;
  } catch {
    // fall through
  }
  throw streamError(provider, `malformed stream event${event ? ` ${event}` : ''}: ${data.slice(0, 120)}`);
}

/** `base` + `path`, without doubling the slash. */
export function joinUrl(base: string, path: string): string {
  return `${base.replace(/\/+$/, '')}/${path.replace(/^\/+/, '')}`;
}

/** Whether the response is a whole JSON document rather than an event stream. */
export function isJsonResponse(response: OpenResponse): boolean {
  const type = String(response.headers['content-type'] ?? '');
  return type.includes('application/json');
}

/** A narrowing accessor for untyped JSON. */
export function obj(value: unknown): Record<string, unknown> {
  return asRecord(value) ?? {};
}

export function str(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}
