/**
 * Keeps the last `limit` characters of a stream of text, cheaply: chunks are kept whole and
 * dropped from the front once the total is well past the limit.
 */
export class TailBuffer {
  readonly #limit: number;
  #chunks: string[] = [];
  #length = 0;
  #dropped = false;

  constructor(limit: number) {
    this.#limit = limit;
  }

  push(text: string): void {
    this.#chunks.push(text);
    this.#length += text.length;
    while (this.#chunks.length > 1 && this.#length - this.#chunks[0]!.length >= this.#limit) {
      this.#length -= this.#chunks.shift()!.length;
      this.#dropped = true;
    }
  }

  /** The kept text, cut to the limit; marked when earlier output was dropped. */
  text(): string {
    const joined = this.#chunks.join('');
    if (joined.length <= this.#limit && !this.#dropped) return joined;
    return `…${joined.slice(-this.#limit)}`;
  }
}

/** The last `lines` lines of a text (for guidance, summaries and failure messages). */
export function lastLines(text: string, lines: number): string {
  const all = text.replace(/\s+$/, '').split('\n');
  return all.slice(-lines).join('\n');
}
