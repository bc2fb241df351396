/**
 * The agent's typed errors. Model errors carry whether a retry may help (`retryable`) and whether
 * the failure is worth trying again later at all (`transient`); the message is always one line,
 * safe to print. A raw HTTP body stays on the error for debug logs and is never part of a message.
 */
import { NeoError } from '../util/errors.js';

/** An error of the agent loop or its settings. */
export class AgentError extends NeoError {
  /** Text the model produced before the failure (a truncated or interrupted turn). */
  readonly partialText: string | undefined;

  constructor(code: string, message: string, options: { hint?: string; cause?: unknown; partialText?: string } = {}) {
    super(code, message, options);
    this.partialText = options.partialText;
  }
}

/** A failed model call. */
export class ModelError extends NeoError {
  /** The retry helper may try again (transient transport failure, 429, 5xx). */
  readonly retryable: boolean;
  /** A later attempt (a new turn) may succeed; reported on the error event. */
  readonly transient: boolean;

  constructor(
    code: string,
    message: string,
    options: { retryable: boolean; transient: boolean; hint?: string; cause?: unknown },
  ) {
    super(code, message, options);
    this.retryable = options.retryable;
    this.transient = options.transient;
  }
}

/** An HTTP status ≥ 400 from a provider, as one line such as `anthropic 401 authentication_error: … (check ANTHROPIC_API_KEY)`. */
export class ModelHttpError extends ModelError {
  readonly status: number;
  readonly errorType: string | undefined;
  /** Milliseconds the server asked us to wait (Retry-After), when it said. */
  readonly retryAfterMs: number | undefined;
  /** The raw response body, for debug logs only; not enumerable, so it never reaches JSON output. */
  declare readonly rawBody: string;

  constructor(line: string, init: { status: number; errorType?: string; retryAfterMs?: number; rawBody: string }) {
    const retryable = init.status === 429 || init.status >= 500;
    super('MODEL_HTTP_ERROR', line, { retryable, transient: retryable });
    this.status = init.status;
    this.errorType = init.errorType;
    this.retryAfterMs = init.retryAfterMs;
    Object.defineProperty(this, 'rawBody', { value: init.rawBody, enumerable: false });
  }
}

/** Transport codes worth retrying: the connection broke before the response began. */
const TRANSIENT_CODES = new Set([
  'ECONNRESET',
  'ECONNREFUSED',
  'EPIPE',
  'EAI_AGAIN',
  'ENETUNREACH',
  'EHOSTUNREACH',
  'ECONNABORTED',
  'UND_ERR_SOCKET',
]);

/** A network failure; retryable when its code is a transient one. */
export function transportError(provider: string, cause: unknown): ModelError {
  const code = typeof (cause as { code?: unknown })?.code === 'string' ? (cause as { code: string }).code : undefined;
  const transient = code !== undefined && TRANSIENT_CODES.has(code);
  const detail = cause instanceof Error ? cause.message : String(cause);
  return new ModelError(
    'MODEL_TRANSPORT_ERROR',
    `${provider}: connection failed: ${detail}${code !== undefined && !detail.includes(code) ? ` (${code})` : ''}`,
    {
      retryable: transient,
      transient,
      cause,
    },
  );
}

/** The response headers or body went silent too long. Never retried: the caller decides. */
export function timeoutError(provider: string, what: 'headers' | 'idle', ms: number): ModelError {
  const message =
    what === 'headers'
      ? `${provider}: no response headers after ${formatMs(ms)}`
      : `${provider}: stream stalled: no data for ${formatMs(ms)}`;
  return new ModelError(what === 'headers' ? 'MODEL_TIMEOUT' : 'MODEL_STREAM_STALLED', message, {
    retryable: false,
    transient: true,
  });
}

/** A stream the adapter cannot make sense of, or an error event inside it. Permanent. */
export function streamError(provider: string, message: string, options: { transient?: boolean } = {}): ModelError {
  return new ModelError('MODEL_STREAM_ERROR', `${provider}: ${message}`, {
    retryable: false,
    transient: options.transient ?? false,
  });
}

/** The caller cancelled (interrupt, stop). */
export function cancelledError(): AgentError {
  return new AgentError('AGENT_INTERRUPTED', 'interrupted');
}

/** `3m0s`, `1.5s`, `250ms`. */
export function formatMs(ms: number): string {
  if (ms < 1000) return `${ms}ms`;
  if (ms < 60_000) return `${Number((ms / 1000).toFixed(1))}s`;
  const minutes = Math.floor(ms / 60_000);
  const seconds = Math.round((ms % 60_000) / 1000);
  return `${minutes}m${seconds}s`;
}
