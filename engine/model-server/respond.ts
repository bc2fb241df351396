import type { ServerResponse } from 'node:http';
import type { ErrorPlan, ReplyPlan, Timing } from './plan.js';
import { serializeEvent, type WireEvent } from './wire.js';

/** How a response ended. */
export type SendOutcome = 'done' | 'aborted' | 'stalled';

/** Resolves after `ms`, or early (with false) when the signal aborts. */
export function sleep(ms: number, signal: AbortSignal): Promise<boolean> {
  if (signal.aborted) return Promise.resolve(false);
  if (ms <= 0) return Promise.resolve(true);
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve(true);
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      resolve(false);
    };
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

/** Holds the connection open and silent until the client leaves or the server closes. */
function hold(signal: AbortSignal): Promise<SendOutcome> {
  if (signal.aborted) return Promise.resolve('stalled');
  return new Promise((resolve) => signal.addEventListener('abort', () => resolve('stalled'), { once: true }));
}

/** Writes a JSON body with a status and headers. */
export function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/json',
    'content-length': String(Buffer.byteLength(text)),
    ...headers,
  });
  res.end(text);
}

/** The headers every model reply carries, so clients can log a request id. */
export function requestIdHeaders(base: string): Record<string, string> {
  return { 'request-id': `req_${base}`, 'x-request-id': `req_${base}` };
}

/** Sends an error plan after its delay: the API's error body, with Retry-After when scripted. */
export async function sendError(
  res: ServerResponse,
  plan: ErrorPlan,
  body: unknown,
  signal: AbortSignal,
): Promise<SendOutcome> {
  if (!(await sleep(plan.timing.delayMs, signal))) return 'aborted';
  const headers: Record<string, string> = requestIdHeaders(plan.base);
  if (plan.retryAfter !== undefined) {
    headers['retry-after'] = String(Math.ceil(plan.retryAfter));
    headers['retry-after-ms'] = String(Math.round(plan.retryAfter * 1000));
  }
  sendJson(res, plan.status, body, headers);
  return 'done';
}

/** Sends a non-streamed reply after its delay; a stalled one never answers. */
export async function sendBody(
  res: ServerResponse,
  plan: ReplyPlan,
  body: unknown,
  signal: AbortSignal,
): Promise<SendOutcome> {
  if (!(await sleep(plan.timing.delayMs, signal))) return 'aborted';
  if (plan.timing.stall !== undefined) return hold(signal);
  sendJson(res, 200, body, requestIdHeaders(plan.base));
  return 'done';
}

/**
 * Streams events as Server-Sent Events (or, for Gemini without `alt=sse`, as a JSON array
 * written piece by piece): delay, then the events with `pace` between them, then end — unless the
 * plan stalls, in which case it stops after the chosen event and holds the connection silent.
 */
export async function sendStream(
  res: ServerResponse,
  plan: ReplyPlan,
  events: readonly WireEvent[],
  framing: 'sse' | 'json-array',
  signal: AbortSignal,
): Promise<SendOutcome> {
  if (!(await sleep(plan.timing.delayMs, signal))) return 'aborted';
  const contentType = framing === 'sse' ? 'text/event-stream; charset=utf-8' : 'application/json; charset=utf-8';
  res.writeHead(200, {
    'content-type': contentType,
    'cache-control': 'no-cache',
    connection: 'keep-alive',
    ...requestIdHeaders(plan.base),
  });
  res.flushHeaders();
  const stallAt = stallIndex(plan.timing, events);
  for (const [index, event] of events.entries()) {
    if (index === stallAt) return hold(signal);
    if (index > 0 && !(await sleep(plan.timing.paceMs, signal))) return 'aborted';
    if (signal.aborted) return 'aborted';
    res.write(framing === 'sse' ? serializeEvent(event) : `${index === 0 ? '[' : ',\r\n'}${event.data}`);
  }
  if (stallAt !== undefined) return hold(signal);
  res.end(framing === 'sse' ? undefined : events.length === 0 ? '[]' : ']');
  return 'done';
}

/** The index of the first event not sent when the plan stalls (undefined: no stall). */
export function stallIndex(timing: Timing, events: readonly WireEvent[]): number | undefined {
  if (timing.stall === undefined) return undefined;
  if (timing.stall === 'first-content') {
    const first = events.findIndex((e) => e.content === true);
    return first < 0 ? Math.min(1, events.length) : first + 1;
  }
  return Math.min(timing.stall, events.length);
}
