/**
 * One-line errors from provider HTTP failures. Every API answers a failure with some form of
 * `{"error":{…}}`: Anthropic `{type, message}`, OpenAI `{type, code, message}`, Gemini
 * `{code, status, message}`, Ollama and llama.cpp a bare string. An unreadable body is trimmed to
 * a short excerpt; the raw body stays on the error, never in its message.
 */
import { ModelHttpError } from '../errors.js';
import { defined } from '../../util/defined.js';

const EXCERPT_CHARS = 200;
const MESSAGE_CHARS = 500;

/** What a provider's error body says, as far as it can be read. */
export interface ParsedErrorBody {
  type?: string;
  message?: string;
}

/** Reads the shared `{"error":{…}}` shape; undefined when the body is not that shape. */
export function parseErrorBody(body: string): ParsedErrorBody | undefined {
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch {
    return undefined;
  }
  // Some servers wrap the error in a one-element array (Gemini's streaming endpoint).
  if (Array.isArray(value) && value.length > 0) value = value[0];
  if (value === null || typeof value !== 'object') return undefined;
  const error = (value as { error?: unknown }).error;
  if (typeof error === 'string') return { message: error };
  if (error === null || typeof error !== 'object') {
    const message = (value as { message?: unknown }).message;
    return typeof message === 'string' ? { message } : undefined;
  }
  const e = error as Record<string, unknown>;
  const type = [e.type, e.status, e.code].find((v): v is string => typeof v === 'string' && v !== '');
  const message = typeof e.message === 'string' ? e.message : undefined;
  if (type === undefined && message === undefined) return undefined;
  return defined({ type, message });
}

/** Whitespace collapsed to single spaces, cut to `max` characters. */
export function oneLine(text: string, max: number): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

/**
 * The error line for a failed response: `<provider> <status> <type>: <message>`, with
 * `(check <ENV>)` on 401 and 403 naming the credential the user should look at.
 */
export function httpErrorLine(
  provider: string,
  status: number,
  body: string,
  options: { credentialEnv?: string; statusText?: string } = {},
): { line: string; errorType?: string } {
  const parsed = parseErrorBody(body);
  let line: string;
  if (parsed !== undefined) {
    const head = parsed.type !== undefined ? `${provider} ${status} ${parsed.type}` : `${provider} ${status}`;
    line = parsed.message !== undefined ? `${head}: ${oneLine(parsed.message, MESSAGE_CHARS)}` : head;
  } else if (body.trim() !== '') {
    line = `${provider} ${status}: ${oneLine(body, EXCERPT_CHARS)}`;
  } else {
    line = `${provider} ${status}${options.statusText ? ` ${options.statusText}` : ''}`;
  }
  if ((status === 401 || status === 403) && options.credentialEnv !== undefined)
    line += ` (check ${options.credentialEnv})`;
  return { line, ...defined({ errorType: parsed?.type }) };
}

/** Retry-After (seconds or an HTTP date) or OpenAI's `retry-after-ms`, in milliseconds. */
export function retryAfterMs(
  headers: Record<string, string | string[] | undefined>,
  now = Date.now(),
): number | undefined {
  const ms = first(headers['retry-after-ms']);
  if (ms !== undefined && /^\d+(\.\d+)?$/.test(ms.trim())) return Math.ceil(Number(ms));
  const value = first(headers['retry-after']);
  if (value === undefined) return undefined;
  if (/^\d+(\.\d+)?$/.test(value.trim())) return Math.ceil(Number(value) * 1000);
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/** The typed error for a failed response. */
export function httpError(
  provider: string,
  status: number,
  headers: Record<string, string | string[] | undefined>,
  body: string,
  options: { credentialEnv?: string; statusText?: string } = {},
): ModelHttpError {
  const { line, errorType } = httpErrorLine(provider, status, body, options);
  const wait = retryAfterMs(headers);
  return new ModelHttpError(line, {
    status,
    rawBody: body,
    ...defined({ errorType, retryAfterMs: wait }),
  });
}

function first(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}
