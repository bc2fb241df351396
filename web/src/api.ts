/**
 * Talking to `neo serve`. The bearer token arrives once, in the URL fragment `neo serve` printed
 * (a fragment is never sent to a server); it moves into sessionStorage and leaves the address
 * bar. Every call — the live feeds too, read with fetch rather than EventSource so they can carry
 * the header — sends it as `Authorization: Bearer`. No cookie: no other page can borrow it.
 * A tab opened without it (a link opened in a new tab) asks the other tabs of this origin for it
 * over a BroadcastChannel, which only same-origin pages can join; it never touches disk.
 */

const KEY = 'neo-token';

/** Takes the token out of the address bar, once. */
export function adoptToken(): void {
  const match = /(?:^#|&)token=([A-Za-z0-9_-]+)/.exec(location.hash);
  if (match === null) return;
  sessionStorage.setItem(KEY, match[1]!);
  history.replaceState(history.state, '', location.pathname + location.search);
}

export function hasToken(): boolean {
  return sessionStorage.getItem(KEY) !== null;
}

/** Tabs of this origin hand the token to a tab that lacks it. */
const channel = typeof BroadcastChannel === 'function' ? new BroadcastChannel('neo-token') : undefined;
const arrived = new Set<() => void>();
if (channel !== undefined)
  channel.onmessage = (e: MessageEvent<{ type?: string; token?: string }>) => {
    const token = sessionStorage.getItem(KEY);
    if (e.data?.type === 'ask' && token !== null) channel.postMessage({ type: 'token', token });
    if (e.data?.type === 'token' && token === null && /^[A-Za-z0-9_-]+$/.test(e.data.token ?? '')) {
      sessionStorage.setItem(KEY, e.data.token!);
      arrived.forEach((f) => f());
    }
  };

/** Asks the other open tabs for the token; `onToken` runs when one hands it over. */
export function askOtherTabs(onToken: () => void): () => void {
  if (channel === undefined) return () => undefined;
  arrived.add(onToken);
  channel.postMessage({ type: 'ask' });
  return () => arrived.delete(onToken);
}

/** The answer that won, when an approval or question was already answered (a 409). */
export interface Answered {
  decision: string;
  note?: string;
  by: string;
  at: string;
}

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly hint?: string,
    readonly answered?: Answered,
  ) {
    super(message);
  }
}

const unauthorized = new Set<() => void>();
/** Called when the server refuses the token (a new server start made a new one). */
export function onUnauthorized(listener: () => void): () => void {
  unauthorized.add(listener);
  return () => unauthorized.delete(listener);
}

function headers(extra: Record<string, string> = {}): Record<string, string> {
  return { authorization: `Bearer ${sessionStorage.getItem(KEY) ?? ''}`, ...extra };
}

/** One API call; the envelope's data, or an ApiError with the server's code and message. */
export async function api<T>(path: string, body?: unknown): Promise<T> {
  const response = await fetch(path, {
    method: body === undefined ? 'GET' : 'POST',
    headers: headers(body === undefined ? {} : { 'content-type': 'application/json' }),
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  let envelope: {
    ok: boolean;
    data?: T;
    error?: { code: string; message: string; hint?: string; answered?: Answered };
  };
  try {
    envelope = (await response.json()) as typeof envelope;
  } catch {
    throw new ApiError(response.status, 'UI_BAD_RESPONSE', `the server answered ${response.status} without JSON`);
  }
  if (response.status === 401) {
    sessionStorage.removeItem(KEY);
    unauthorized.forEach((f) => f());
  }
  if (!envelope.ok || envelope.error !== undefined) {
    const e = envelope.error ?? { code: 'UI_ERROR', message: `HTTP ${response.status}` };
    throw new ApiError(response.status, e.code, e.message, e.hint, 'answered' in e ? e.answered : undefined);
  }
  return envelope.data as T;
}

export interface StreamEvent {
  id?: string;
  event: string;
  data: unknown;
}

export type StreamState = 'connecting' | 'open' | 'retrying';

/**
 * A Server-Sent Events stream over fetch: parsed events in order, reconnecting after a second
 * with `Last-Event-ID` so nothing is missed or repeated. Returns a function that closes it.
 */
export function stream(
  path: string,
  onEvent: (event: StreamEvent) => void,
  onState: (state: StreamState) => void = () => {},
): () => void {
  let closed = false;
  let lastId: string | undefined;
  let controller: AbortController | undefined;
  const run = async () => {
    while (!closed) {
      controller = new AbortController();
      onState('connecting');
      try {
        const response = await fetch(path, {
          headers: headers({
            accept: 'text/event-stream',
            ...(lastId === undefined ? {} : { 'last-event-id': lastId }),
          }),
          signal: controller.signal,
        });
        if (response.status === 401) {
          sessionStorage.removeItem(KEY);
          unauthorized.forEach((f) => f());
          return;
        }
        if (!response.ok || response.body === null) throw new Error(`HTTP ${response.status}`);
        onState('open');
        const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
        let buffer = '';
        for (;;) {
          const { done, value } = await reader.read();
          if (done) break;
          buffer += value;
          let cut = buffer.indexOf('\n\n');
          while (cut >= 0) {
            const block = buffer.slice(0, cut);
            buffer = buffer.slice(cut + 2);
            cut = buffer.indexOf('\n\n');
            const parsed = parseBlock(block);
            if (parsed === undefined) continue;
            if (parsed.id !== undefined) lastId = parsed.id;
            onEvent(parsed);
          }
        }
      } catch {
        // A dropped connection: retried below.
      }
      if (closed) return;
      onState('retrying');
      await new Promise((resolve) => setTimeout(resolve, 1000));
    }
  };
  void run();
  return () => {
    closed = true;
    controller?.abort();
  };
}

function parseBlock(block: string): StreamEvent | undefined {
  let event = 'message';
  let id: string | undefined;
  const data: string[] = [];
  for (const line of block.split('\n')) {
    if (line.startsWith('data: ')) data.push(line.slice(6));
    else if (line.startsWith('event: ')) event = line.slice(7);
    else if (line.startsWith('id: ')) id = line.slice(4);
  }
  if (data.length === 0) return undefined;
  try {
    return { event, ...(id === undefined ? {} : { id }), data: JSON.parse(data.join('\n')) };
  } catch {
    return undefined;
  }
}
