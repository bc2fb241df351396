/**
 * A Server-Sent Events decoder: feed it text chunks as they arrive, get whole events back.
 * Handles `\n`, `\r\n` and `\r` line ends, events split across chunks, comments and multi-line
 * `data:` fields, per the WHATWG event-stream rules. Plain on purpose: a reply streams over
 * seconds, and reading its events costs microseconds (docs/architecture.md, performance notes).
 */

export interface SseEvent {
  /** The `event:` field; empty when absent. */
  event: string;
  data: string;
}

/** Receives one event: its data, and its `event:` field (empty when absent). */
export type SseListener = (data: string, event: string) => void;

export class SseDecoder {
  /** The text after the last complete line (a line cut off by the chunk's end). */
  #rest = '';
  #event = '';
  /** The event's data so far (multi-line data joined with \n); undefined: no data line yet. */
  #data: string | undefined;
  /** The next line end: `\r\n`, `\n` or `\r` (one per decoder: a global regex keeps its position). */
  readonly #lineEnd = /\r\n|\n|\r/g;

  /** Decodes a chunk, calling `onEvent` for each event it completes, in order. */
  decode(chunk: string, onEvent: SseListener): void {
    const lineEnd = this.#lineEnd;
    const text = this.#rest + chunk;
    let start = 0;
    // What was kept holds no line end but perhaps a final `\r`: scan from there, not from the start.
    lineEnd.lastIndex = Math.max(0, this.#rest.length - 1);
    for (let end = lineEnd.exec(text); end !== null; end = lineEnd.exec(text)) {
      // A `\r` that ends the text may be the first half of `\r\n`: wait for the next chunk.
      if (end[0] === '\r' && end.index === text.length - 1) break;
      this.#line(text.slice(start, end.index), onEvent);
      start = lineEnd.lastIndex;
    }
    this.#rest = text.slice(start);
  }

  /** Flushes a final event that had no blank line after it. */
  finish(onEvent: SseListener): void {
    const rest = this.#rest.endsWith('\r') ? this.#rest.slice(0, -1) : this.#rest;
    this.#rest = '';
    if (rest !== '') this.#line(rest, onEvent);
    this.#line('', onEvent);
  }

  /** Decodes a chunk; returns the events it completed. */
  push(chunk: string): SseEvent[] {
    const out: SseEvent[] = [];
    this.decode(chunk, (data, event) => out.push({ event, data }));
    return out;
  }

  /** Flushes a final event that had no blank line after it; returns it, if any. */
  end(): SseEvent[] {
    const out: SseEvent[] = [];
    this.finish((data, event) => out.push({ event, data }));
    return out;
  }

  /** One line, its line end removed: a field, a comment, or the blank line that dispatches the event. */
  #line(line: string, onEvent: SseListener): void {
    if (line === '') {
      const data = this.#data;
      const event = this.#event;
      this.#event = '';
      this.#data = undefined;
      if (data !== undefined) onEvent(data, event);
      return;
    }
    if (line.startsWith(':')) return;
    const colon = line.indexOf(':');
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'data') this.#data = this.#data === undefined ? value : `${this.#data}\n${value}`;
    else if (field === 'event') this.#event = value;
  }
}
