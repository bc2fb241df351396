/**
 * A Server-Sent Events decoder: feed it text chunks as they arrive, get whole events back.
 * Handles `\n`, `\r\n` and `\r` line ends, events split across chunks, comments and multi-line
 * `data:` fields, per the WHATWG event-stream rules.
 */

export interface SseEvent {
  /** The `event:` field; empty when absent. */
  event: string;
  data: string;
}

export class SseDecoder {
  #buffer = '';
  #event = '';
  /** The event's data so far (multi-line data joined with \n); undefined: no data line yet. */
  #data: string | undefined;

  /** Decodes a chunk; returns the events it completed. */
  push(chunk: string): SseEvent[] {
    this.#buffer += chunk;
    const out: SseEvent[] = [];
    const buffer = this.#buffer;
    let start = 0;
    if (!buffer.includes('\r')) {
      // The common case (every model API): \n line ends only, found with indexOf.
      for (let end = buffer.indexOf('\n', start); end !== -1; end = buffer.indexOf('\n', start)) {
        this.#line(buffer.slice(start, end), out);
        start = end + 1;
      }
      this.#buffer = buffer.slice(start);
      return out;
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
      this.#line(buffer.slice(start, end), out);
      start = next;
    }
    this.#buffer = buffer.slice(start);
    return out;
  }

  /** Flushes a final event that had no blank line after it. */
  end(): SseEvent[] {
    const out: SseEvent[] = [];
    if (this.#buffer !== '') this.#line(this.#buffer, out);
    this.#buffer = '';
    this.#line('', out);
    return out;
  }

  #line(line: string, out: SseEvent[]): void {
    if (line === '') {
      if (this.#data !== undefined) out.push({ event: this.#event, data: this.#data });
      this.#event = '';
      this.#data = undefined;
      return;
    }
    // The two lines every model stream is made of, without the general field split.
    if (line.startsWith('data: ')) return this.#addData(line.slice(6));
    if (line.startsWith('event: ')) {
      this.#event = line.slice(7);
      return;
    }
    if (line.charCodeAt(0) === 58) return; // ':' a comment
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
