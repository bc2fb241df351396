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
import { StringDecoder } from 'node:string_decoder';
import { cancelledError, timeoutError, transportError } from '../errors.js';
import { startWatch } from './watchdog.js';

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
  /**
   * Feeds the body to `onChunk` as text chunks arrive, each wait guarded by the idle timer.
   * Resolves at the end of the body; rejects on a stall, a cancellation, a broken connection or
   * an exception thrown by `onChunk` (which also cancels the request). Read the body once.
   */
  consume(onChunk: (chunk: string) => void): Promise<void>;
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
    const { headersTimeoutMs } = request;
    const deadline = Date.now() + headersTimeoutMs;
    const unwatch = startWatch({
      periodMs: checkPeriod(headersTimeoutMs),
      check: (now) => {
        if (now >= deadline) fail(timeoutError(provider, 'headers', headersTimeoutMs));
      },
    });
    req.on('error', (error) => {
      unwatch();
      signal?.removeEventListener('abort', onAbort);
      reject(failure ?? transportError(provider, error));
    });
    req.on('response', (res) => {
      unwatch();
      signal?.removeEventListener('abort', onAbort);
      resolve(openResponse(res, request));
    });
    req.end(request.body);
  });
}

function openResponse(res: IncomingMessage, request: PostRequest): OpenResponse {
  let read = false;
  const consume = (onChunk: (chunk: string) => void): Promise<void> => {
    if (read) return Promise.reject(new Error('response body already read'));
    read = true;
    return consumeBody(res, request, onChunk);
  };
  return {
    status: res.statusCode ?? 0,
    statusText: res.statusMessage ?? '',
    headers: res.headers,
    consume,
    async text() {
      let out = '';
      await consume((chunk) => {
        if (out.length < ERROR_BODY_MAX) out += chunk;
      });
      return out.slice(0, ERROR_BODY_MAX);
    },
    discard() {
      res.destroy();
    },
  };
}

/** A deadline is checked this many times per timeout, so it fires at most 1/8 of it late. */
const CHECKS_PER_TIMEOUT = 8;

function checkPeriod(timeoutMs: number): number {
  return Math.max(1, Math.ceil(timeoutMs / CHECKS_PER_TIMEOUT));
}

/**
 * Reads the body in paused mode: a streamed reply is hundreds of small chunks, and one socket read
 * often holds a hundred of them. The stream buffers them as the parser delivers them, and one
 * 'readable' per read hands them over as one Buffer, decoded once — rather than a 'data' event,
 * a string decode and a call into the SSE decoder for each. No promise is made per chunk.
 *
 * The idle time is checked by the shared watchdog, not a timer of its own, and a read only bumps
 * a counter: reading the clock for every read would cost more than the rest of what is done per
 * read here. The check reads the clock instead; when the count moved since the last check, the
 * last read came at most one check ago, and quiet time is counted from this check — so the
 * timeout never fires early, and at most one check period late.
 */
function consumeBody(res: IncomingMessage, request: PostRequest, onChunk: (chunk: string) => void): Promise<void> {
  const { provider, signal, idleTimeoutMs } = request;
  return new Promise<void>((resolve, reject) => {
    let chunks = 0;
    let counted = 0;
    let quietSince = Date.now();
    let settled = false;
    const finish = (error?: Error): void => {
      if (settled) return;
      settled = true;
      unwatch();
      signal?.removeEventListener('abort', onAbort);
      if (error === undefined) return resolve();
      res.destroy();
      reject(error);
    };
    const unwatch = startWatch({
      periodMs: checkPeriod(idleTimeoutMs),
      check: (now) => {
        if (chunks !== counted) {
          counted = chunks;
          quietSince = now;
        } else if (now - quietSince >= idleTimeoutMs) finish(timeoutError(provider, 'idle', idleTimeoutMs));
      },
    });
    const onAbort = (): void => finish(cancelledError());
    signal?.addEventListener('abort', onAbort, { once: true });
    if (signal?.aborted) return onAbort();
    // Decoded here rather than by setEncoding, which decodes each chunk as it is buffered.
    const utf8 = new StringDecoder('utf8');
    const deliver = (chunk: string): void => {
      try {
        onChunk(chunk);
      } catch (error) {
        finish(error instanceof Error ? error : new Error(String(error)));
      }
    };
    res.on('readable', () => {
      for (let bytes = res.read() as Buffer | null; bytes !== null && !settled; bytes = res.read() as Buffer | null) {
        chunks++;
        deliver(utf8.write(bytes));
      }
    });
    res.on('end', () => {
      // A multi-byte character cut off by the end of the body becomes U+FFFD, as setEncoding would.
      const rest = utf8.end();
      if (rest !== '' && !settled) deliver(rest);
      finish();
    });
    res.on('error', (error) => finish(transportError(provider, error)));
    res.on('close', () => {
      if (!res.complete)
        finish(
          transportError(
            provider,
            Object.assign(new Error('the connection closed before the response ended'), { code: 'ECONNRESET' }),
          ),
        );
    });
  });
}
