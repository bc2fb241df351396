/**
 * Serializes async work per key inside one process: `run(key, fn)` starts `fn` only after every
 * earlier `fn` for the same key settled. Used for read-modify-write of meta files.
 */
export class KeyedLock {
    #tails = new Map();
    run(key, fn) {
        const previous = this.#tails.get(key) ?? Promise.resolve();
        const next = previous.then(fn, fn);
        const tail = next.catch(() => undefined);
        this.#tails.set(key, tail);
        void tail.then(() => {
            if (this.#tails.get(key) === tail)
                this.#tails.delete(key);
        });
        return next;
    }
}
