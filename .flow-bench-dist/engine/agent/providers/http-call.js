/** The shared HTTP half of every adapter: open with retries, then read SSE or JSON. */
import { streamError } from '../errors.js';
import { openWithRetry } from '../http/retry.js';
import { SseDecoder } from '../http/sse.js';
/** POSTs `body` to `url` under the config's timeouts and retry policy. */
export function openCall(config, url, headers, body, signal) {
    return openWithRetry({
        provider: config.name,
        url,
        headers: { 'content-type': 'application/json', accept: 'text/event-stream', ...headers, ...config.headers },
        body: JSON.stringify(body),
        headersTimeoutMs: config.headersTimeoutMs,
        idleTimeoutMs: config.idleTimeoutMs,
        ...(signal !== undefined ? { signal } : {}),
    }, config.retry, { ...(config.credentialEnv !== undefined ? { credentialEnv: config.credentialEnv } : {}), ...config.hooks });
}
/**
 * Calls `onEvent` for each SSE event of the body, in order, synchronously as chunks arrive. An
 * exception thrown by `onEvent` cancels the request and rejects.
 */
export async function readSse(response, onEvent) {
    const decoder = new SseDecoder();
    await response.consume((chunk) => {
        for (const event of decoder.push(chunk))
            onEvent(event);
    });
    for (const event of decoder.end())
        onEvent(event);
}
/** Parses one event's JSON data; a malformed payload is a permanent stream error. */
export function parseData(provider, event) {
    try {
        const value = JSON.parse(event.data);
        if (value !== null && typeof value === 'object' && !Array.isArray(value))
            return value;
    }
    catch {
        // fall through
    }
    throw streamError(provider, `malformed stream event${event.event ? ` ${event.event}` : ''}: ${event.data.slice(0, 120)}`);
}
/** `base` + `path`, without doubling the slash. */
export function joinUrl(base, path) {
    return `${base.replace(/\/+$/, '')}/${path.replace(/^\/+/, '')}`;
}
/** Whether the response is a whole JSON document rather than an event stream. */
export function isJsonResponse(response) {
    const type = String(response.headers['content-type'] ?? '');
    return type.includes('application/json');
}
/** A narrowing accessor for untyped JSON. */
export function obj(value) {
    return value !== null && typeof value === 'object' && !Array.isArray(value) ? value : {};
}
export function str(value) {
    return typeof value === 'string' ? value : undefined;
}
