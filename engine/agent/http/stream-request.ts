/**
 * One HTTP POST with the timeouts a long model generation needs. There is no total deadline: a
 * long reasoning turn is legitimate. Instead the wait for response headers is bounded (generous,
 * because a non-streaming API sends them only when generation ends), and every body read is
 * guarded by an idle timer that cancels the request when the server goes silent. The caller's
 * AbortSignal is the overall bound.
 *
 * Built on node:http rather than the global fetch: fetch's dispatcher imposes its own 300-second
 * header and body timeouts, which would cut off exactly the turns these rules exist for.
 */
import http from 'node:http';
import https from 'node:https';
import type { IncomingHttpHeaders, IncomingMessage } from 'node:http';
import { cancelledError, timeoutError, transportError } from '../errors.js';

const agents = {
  http: new http.Agent({ keepAlive: true }),
  https: new https.Agent({ keepAlive: true }),
};

/** Most bytes read from an error body (the rest is dropped; it is only for an excerpt). */
const ERROR_BODY_MAX = 1024 * 1024;

export interface PostRequest {
  /** For error messages (`anthropic`, `openrouter`). */
  provider: string;
  url: string;
  headers: Record<string, string>;
  body: string;
  headersTimeoutMs: number;
  idleTimeoutMs: number;
  signal?: AbortSignal;
}

/** An open response whose body has not been read yet. */
export interface OpenResponse {
  status: number;
  statusText: string;
  headers: IncomingHttpHeaders;
  /** The body as text chunks, each read guarded by the idle timer. Read it once. */
  chunks(): AsyncIterable<string>;
  /** The whole body (capped), for error responses and non-streaming replies. */
  text(): Promise<string>;
  /** Drops the response without reading it. */
  discard(): void;
}

/** Sends the request and resolves when the response headers arrive. */
export function postStream(request: PostRequest): Promise<OpenResponse> {
  const { provider, signal } = request;
  if (signal?.aborted) return Promise.reject(cancelledError());
  const url = new URL(request.url);
  const secure = url.protocol === 'https:';
  return new Promise<OpenResponse>((resolve, reject) => {
    let failure: Error | undefined;
    const req = (secure ? https : http).request(url, {
      method: 'POST',
      agent: secure ? agents.https : agents.http,
      headers: { ...request.headers, 'content-length': Buffer.byteLength(request.body) },
    });
    const fail = (error: Error): void => {
      failure ??= error;
      req.destroy(error);
    };
    const onAbort = (): void => fail(cancelledError());
    signal?.addEventListener('abort', onAbort, { once: true });
    const headerTimer = setTimeout(() => fail(timeoutError(provider, 'headers', request.headersTimeoutMs)), request.headersTimeoutMs);
    req.on('error', (error) => {
      clearTimeout(headerTimer);
      signal?.removeEventListener('abort', onAbort);
      reject(failure ?? transportError(provider, error));
    });
    req.on('response', (res) => {
      clearTimeout(headerTimer);
      signal?.removeEventListener('abort', onAbort);
      resolve(openResponse(res, request));
    });
    req.end(request.body);
  });
}

function openResponse(res: IncomingMessage, request: PostRequest): OpenResponse {
  let read = false;
  const chunks = (): AsyncIterable<string> => {
    if (read) throw new Error('response body already read');
    read = true;
    return guardedBody(res, request);
  };
  return {
    status: res.statusCode ?? 0,
    statusText: res.statusMessage ?? '',
    headers: res.headers,
    chunks,
    async text() {
      let out = '';
      for await (const chunk of chunks()) if (out.length < ERROR_BODY_MAX) out += chunk;
      return out.slice(0, ERROR_BODY_MAX);
    },
    discard() {
      res.destroy();
    },
  };
}

/** Yields body chunks; the idle timer runs only while waiting on the server, not on the consumer. */
async function* guardedBody(res: IncomingMessage, request: PostRequest): AsyncGenerator<string> {
  const { provider, signal, idleTimeoutMs } = request;
  let failure: Error | undefined;
  const fail = (error: Error): void => {
    failure ??= error;
    res.destroy(error);
  };
  const onAbort = (): void => fail(cancelledError());
  signal?.addEventListener('abort', onAbort, { once: true });
  if (signal?.aborted) onAbort();
  const arm = (): NodeJS.Timeout => setTimeout(() => fail(timeoutError(provider, 'idle', idleTimeoutMs)), idleTimeoutMs);
  res.setEncoding('utf8');
  let timer = arm();
  let complete = false;
  try {
    for await (const chunk of res) {
      clearTimeout(timer);
      yield chunk as string;
      if (failure !== undefined) throw failure;
      timer = arm();
    }
    complete = true;
  } catch (error) {
    throw failure ?? transportError(provider, error);
  } finally {
    clearTimeout(timer);
    signal?.removeEventListener('abort', onAbort);
    if (!complete) res.destroy();
  }
  if (failure !== undefined) throw failure;
}
