/**
 * One Server-Sent Events response: a queue per client, written in batches (whatever queued while
 * the last write was in flight goes out as one chunk), a heartbeat comment so proxies and the
 * browser keep the connection, and a bound — a client that falls that far behind is cut off and
 * reconnects with Last-Event-ID, resuming from where it was, instead of growing memory without end.
 */
import type { Context } from 'hono';
import { streamSSE } from 'hono/streaming';

export interface SseMessage {
  id?: string;
  event?: string;
  data: string;
}

export interface SseOptions {
  heartbeatMs: number;
  /** Queued messages beyond which a slow client is disconnected. */
  maxQueue: number;
}

/** How an SSE response is fed: `open` starts sending and returns what stops it. */
export type SseSource = (send: (message: SseMessage) => void, end: () => void) => Promise<() => void> | (() => void);

export function sseResponse(c: Context, source: SseSource, options: SseOptions): Response {
  return streamSSE(c, async (stream) => {
    let queue: string[] = [];
    let ended = false;
    let wake: (() => void) | undefined;
    const kick = () => {
      const w = wake;
      wake = undefined;
      w?.();
    };
    const end = () => {
      ended = true;
      kick();
    };
    const send = (message: SseMessage) => {
      if (ended) return;
      queue.push(format(message));
      if (queue.length > options.maxQueue) {
        queue = [];
        end();
        return;
      }
      kick();
    };
    stream.onAbort(end);
    const heartbeat = setInterval(() => {
      if (!ended) {
        queue.push(': heartbeat\n\n');
        kick();
      }
    }, options.heartbeatMs);
    let stop: (() => void) | undefined;
    try {
      await stream.write('retry: 1000\n\n');
      stop = await source(send, end);
      while (!ended || queue.length > 0) {
        if (queue.length === 0) {
          await new Promise<void>((resolve) => (wake = resolve));
          continue;
        }
        const batch = queue.join('');
        queue = [];
        await stream.write(batch);
        if (stream.aborted) break;
      }
    } finally {
      clearInterval(heartbeat);
      stop?.();
    }
  });
}

function format(message: SseMessage): string {
  let out = '';
  if (message.event !== undefined) out += `event: ${message.event}\n`;
  if (message.id !== undefined) out += `id: ${message.id}\n`;
  // JSON has no raw newlines; other data is split into data lines as the format asks.
  for (const line of message.data.split('\n')) out += `data: ${line}\n`;
  return `${out}\n`;
}
