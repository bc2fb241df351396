/** Collects a stream's text keeping the first and the last `limit` bytes, so a flood cannot exhaust memory. */
export class CappedCollector {
    #limit;
    #head = '';
    #headBytes = 0;
    #tail = [];
    #tailBytes = 0;
    #dropped = 0;
    constructor(limit) {
        this.#limit = limit;
    }
    push(chunk) {
        if (this.#headBytes < this.#limit) {
            this.#head += chunk;
            this.#headBytes += Buffer.byteLength(chunk);
            return;
        }
        this.#tail.push(chunk);
        this.#tailBytes += Buffer.byteLength(chunk);
        while (this.#tailBytes > this.#limit && this.#tail.length > 1) {
            const first = this.#tail.shift();
            const size = Buffer.byteLength(first);
            this.#tailBytes -= size;
            this.#dropped += size;
        }
    }
    text() {
        const tail = this.#tail.join('');
        return this.#dropped > 0 ? `${this.#head}\n[… ${this.#dropped} bytes omitted …]\n${tail}` : this.#head + tail;
    }
}
