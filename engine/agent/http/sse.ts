/**
 * A Server-Sent Events decoder: feed it text chunks as they arrive, get whole events back.
 * Handles `\n`, `\r\n` and `\r` line ends, events split across chunks, comments and multi-line
 * `data:` fields, per the WHATWG event-stream rules.
 *
 * It sits on the hot path of every streamed reply (one event per few characters of text), so the
 * common event shape is read whole, in place, at the cost of one slice per field, and events go
 * to a callback rather than into an array of objects.
 */

export interface SseEvent {
  /** The `event:` field; empty when absent. */
  event: string;
  data: string;
}

/** Receives one event: its data, and its `event:` field (empty when absent). */
export type SseListener = (data: string, event: string) => void;

/**
 * A reader for the one event shape that makes up most of a stream, applied to the raw text at an
 * event boundary, before any line is split: given the text and where an event starts, it returns
 * the index just past the events it read (one, or a run of them; blank line included), or -1 when
 * the text there is not its shape — the decoder then reads it the ordinary way. It must read whole
 * events only.
 */
export type SseFastPath = (text: string, start: number) => number;

export class SseDecoder {
  #buffer = '';
  #event = '';
  /** The event's data so far (multi-line data joined with \n); undefined: no data line yet. */
  #data: string | undefined;

  /**
   * Decodes a chunk, calling `onEvent` for each event it completes, in order; `fast`, when given,
   * is offered each event that starts at a boundary with nothing pending first.
   */
  decode(chunk: string, onEvent: SseListener, fast?: SseFastPath): void {
    const pending = this.#buffer;
    if (pending === '') return this.#decodeText(chunk, onEvent, fast);
    this.#buffer = '';
    // The line the last chunk cut off is completed on its own, and the rest of this chunk read in
    // place: joining them into one string would copy the whole chunk (often a hundred events).
    const newline = chunk.indexOf('\n');
    if (newline === -1) return this.#decodeText(pending + chunk, onEvent, fast);
    this.#decodeText(pending + chunk.slice(0, newline + 1), onEvent, fast);
    this.#decodeText(chunk.slice(newline + 1), onEvent, fast);
  }

  /** Decodes `buffer`, which starts at a line start; keeps what follows its last line end for the next chunk. */
  #decodeText(buffer: string, onEvent: SseListener, fast: SseFastPath | undefined): void {
    let start = 0;
    if (buffer.indexOf('\r') === -1) {
      // The common case (every model API): \n line ends only, found with indexOf.
      for (;;) {
        if (this.#data === undefined && this.#event === '' && start < buffer.length) {
          let next = fast === undefined ? -1 : fast(buffer, start);
          if (next === -1) next = this.#block(buffer, start, onEvent);
          if (next !== -1) {
            start = next;
            continue;
          }
        }
        const end = buffer.indexOf('\n', start);
        if (end === -1) break;
        this.#line(buffer, start, end, onEvent);
        start = end + 1;
      }
      this.#buffer = start === buffer.length ? '' : buffer.slice(start);
      return;
    }
    for (;;) {
      let end = -1;
      let next = -1;
      for (let i = start; i < buffer.length; i++) {
        const c = buffer.charCodeAt(i);
        if (c === 10) {
          end = i;
          next = i + 1;
          break;
        }
        if (c === 13) {
          // A lone \r at the end of a chunk may be the first half of \r\n: wait for more.
          if (i + 1 >= buffer.length) break;
          end = i;
          next = buffer.charCodeAt(i + 1) === 10 ? i + 2 : i + 1;
          break;
        }
      }
      if (end === -1) break;
      this.#line(buffer, start, end, onEvent);
      start = next;
    }
    this.#buffer = buffer.slice(start);
  }

  /** Flushes a final event that had no blank line after it. */
  finish(onEvent: SseListener): void {
    const rest = this.#buffer;
    this.#buffer = '';
    if (rest !== '') this.#line(rest, 0, rest.length, onEvent);
    this.#line('', 0, 0, onEvent);
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

  /**
   * The event nearly every model stream is made of, `[event: NAME\n]data: DATA\n\n` whole at
   * `start` (with nothing pending), dispatched without going line by line. Returns where the next
   * event begins, or -1 when the text there is anything else (then it is read line by line).
   */
  #block(text: string, start: number, onEvent: SseListener): number {
    let name = '';
    let data = start;
    if (text.charCodeAt(start) === 101 && text.startsWith('event: ', start)) {
      const newline = text.indexOf('\n', start);
      if (newline === -1) return -1;
      name = text.slice(start + 7, newline);
      data = newline + 1;
    }
    if (text.charCodeAt(data) !== 100 || !text.startsWith('data: ', data)) return -1;
    const end = text.indexOf('\n', data);
    if (end === -1 || text.charCodeAt(end + 1) !== 10) return -1;
    onEvent(text.slice(data + 6, end), name);
    return end + 2;
  }

  /** One line: `text` from `start` to `end` (exclusive, line end excluded). */
  #line(text: string, start: number, end: number, onEvent: SseListener): void {
    if (start === end) {
      const data = this.#data;
      const event = this.#event;
      this.#event = '';
      this.#data = undefined;
      if (data !== undefined) onEvent(data, event);
      return;
    }
    if (text.charCodeAt(start) === 58) return; // ':' a comment
    const line = text.slice(start, end);
    const colon = line.indexOf(':');
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'data') this.#addData(value);
    else if (field === 'event') this.#event = value;
  }

  #addData(value: string): void {
    this.#data = this.#data === undefined ? value : `${this.#data}\n${value}`;
  }
}
