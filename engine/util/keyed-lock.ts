/**
 * Serializes async work per key inside one process: `run(key, fn)` starts `fn` only after every
 * earlier `fn` for the same key settled. Used for read-modify-write of meta files.
 */
export class KeyedLock {
  readonly #tails = new Map<string, Promise<unknown>>();

  run<T>(key: string, fn: () => Promise<T>): Promise<T> {
    const previous = this.#tails.get(key) ?? Promise.resolve();
    const next = previous.then(fn, fn);
    const tail = next.catch(() => undefined);
    this.#tails.set(key, tail);
    void tail.then(() => {
      if (this.#tails.get(key) === tail) this.#tails.delete(key);
    });
    return next;
  }

  /** Whether work for `key` is queued or running (a caller may then skip the queue safely only when idle). */
  busy(key: string): boolean {
    return this.#tails.has(key);
  }
}
