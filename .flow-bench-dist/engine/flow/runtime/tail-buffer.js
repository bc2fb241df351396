/**
 * Keeps the last `limit` characters of a stream of text, cheaply: chunks are kept whole and
 * dropped from the front once the total is well past the limit.
 */
export class TailBuffer {
    #limit;
    #chunks = [];
    #length = 0;
    #dropped = false;
    constructor(limit) {
        this.#limit = limit;
    }
    push(text) {
        this.#chunks.push(text);
        this.#length += text.length;
        while (this.#chunks.length > 1 && this.#length - this.#chunks[0].length >= this.#limit) {
            this.#length -= this.#chunks.shift().length;
            this.#dropped = true;
        }
    }
    /** The kept text, cut to the limit; marked when earlier output was dropped. */
    text() {
        const joined = this.#chunks.join('');
        if (joined.length <= this.#limit && !this.#dropped)
            return joined;
        return `…${joined.slice(-this.#limit)}`;
    }
}
