/**
 * A single-consumer async queue: producers push, one `for await` drains. Pushing after close
 * is a no-op, so late callbacks from a dying child process can never resurrect a stream.
 */
export class EventChannel {
    #buffer = [];
    #waiter;
    #closed = false;
    /** Whether close() has been called (buffered items may still be waiting to be read). */
    get closed() {
        return this.#closed;
    }
    push(item) {
        if (this.#closed)
            return;
        const waiter = this.#waiter;
        if (waiter !== undefined) {
            this.#waiter = undefined;
            waiter({ value: item, done: false });
        }
        else {
            this.#buffer.push(item);
        }
    }
    /** Ends the stream after the buffered items. */
    close() {
        if (this.#closed)
            return;
        this.#closed = true;
        const waiter = this.#waiter;
        this.#waiter = undefined;
        waiter?.({ value: undefined, done: true });
    }
    [Symbol.asyncIterator]() {
        return {
            next: () => {
                const item = this.#buffer.shift();
                if (item !== undefined)
                    return Promise.resolve({ value: item, done: false });
                if (this.#closed)
                    return Promise.resolve({ value: undefined, done: true });
                return new Promise((resolve) => {
                    this.#waiter = resolve;
                });
            },
            return: () => {
                this.close();
                this.#buffer.length = 0;
                return Promise.resolve({ value: undefined, done: true });
            },
        };
    }
}
