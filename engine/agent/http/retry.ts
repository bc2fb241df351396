/**
 * Opens a provider request, retrying only what a retry can fix: transient transport errors
 * (connection reset or refused before a response) and retryable statuses (429, 5xx), waiting as
 * Retry-After says when the server says. Timeouts, cancellations and permanent errors (4xx, a
 * malformed stream) fail after one attempt. Only the opening is retried: once a body is being
 * read, its deltas have reached the user and a replay would duplicate them.
 */
import { cancelledError, ModelError } from '../errors.js';
import { httpError } from './http-error.js';
import { postStream, type OpenResponse, type PostRequest } from './stream-request.js';
import { defined } from '../../util/defined.js';

export interface RetryPolicy {
  /** Retries after the first attempt. */
  maxRetries: number;
  /** First backoff; doubled per attempt, jittered, capped at maxDelayMs. */
  baseDelayMs: number;
  maxDelayMs: number;
  /** A Retry-After longer than this gives up at once instead of waiting. */
  maxRetryAfterMs: number;
}

export const DEFAULT_RETRY: RetryPolicy = {
  maxRetries: 4,
  baseDelayMs: 1000,
  maxDelayMs: 30_000,
  maxRetryAfterMs: 300_000,
};

/** Seams for tests: how to wait, and the jitter source. */
export interface RetryHooks {
  sleep?(ms: number, signal?: AbortSignal): Promise<void>;
  random?(): number;
  /** Called before each wait (for debug logs). */
  onRetry?(info: { attempt: number; delayMs: number; error: ModelError }): void;
}

/** Opens `request`; a status ≥ 400 becomes a {@link ModelHttpError} with a one-line message. */
export async function openWithRetry(
  request: PostRequest,
  policy: RetryPolicy,
  options: { credentialEnv?: string } & RetryHooks = {},
): Promise<OpenResponse> {
  const sleep = options.sleep ?? abortableSleep;
  const random = options.random ?? Math.random;
  for (let attempt = 0; ; attempt++) {
    try {
      const response = await postStream(request);
      if (response.status < 400) return response;
      const body = await response.text();
      throw httpError(request.provider, response.status, response.headers, body, {
        ...defined({ credentialEnv: options.credentialEnv }),
        statusText: response.statusText,
      });
    } catch (error) {
      if (!(error instanceof ModelError) || !error.retryable || attempt >= policy.maxRetries || request.signal?.aborted)
        throw error;
      const asked = (error as { retryAfterMs?: number }).retryAfterMs;
      if (asked !== undefined && asked > policy.maxRetryAfterMs) throw error;
      const backoff = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** attempt) * (0.5 + random() * 0.5);
      const delayMs = asked ?? Math.round(backoff);
      options.onRetry?.({ attempt: attempt + 1, delayMs, error });
      await sleep(delayMs, request.signal);
    }
  }
}

/** setTimeout as a promise that rejects when the signal aborts. */
export function abortableSleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(cancelledError());
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(cancelledError());
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
