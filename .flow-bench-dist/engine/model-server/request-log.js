import { JsonlAppender } from '../util/jsonl.js';
import { NeoError } from '../util/errors.js';
const SECRET_HEADER = /authorization|api[-_]?key|token|secret|cookie|password/i;
const SECRET_QUERY = /^(key|api[-_]?key|token|access_token)$/i;
/** Headers as a plain map with credentials replaced by `[redacted]`. */
export function redactHeaders(headers) {
    const out = {};
    for (const [name, value] of Object.entries(headers)) {
        if (value === undefined)
            continue;
        out[name] = SECRET_HEADER.test(name) ? '[redacted]' : Array.isArray(value) ? value.join(', ') : value;
    }
    return out;
}
/** Query parameters with credentials (Gemini's `?key=`) redacted. */
export function redactQuery(params) {
    const out = {};
    for (const [name, value] of params)
        out[name] = SECRET_QUERY.test(name) ? '[redacted]' : value;
    return out;
}
/** The request log: in memory for tests, and optionally appended to a JSONL file. */
export class RequestLog {
    entries = [];
    #appender;
    #listeners;
    #waiters = [];
    constructor(options = {}) {
        this.#appender = options.file === undefined ? undefined : new JsonlAppender(options.file);
        this.#listeners = options.onRequest === undefined ? [] : [options.onRequest];
    }
    add(entry) {
        this.entries.push(entry);
        // A failing log file must not take the model server down; the entry stays in memory.
        this.#appender?.append(entry).catch(() => undefined);
        for (const listener of this.#listeners)
            listener(entry);
        for (const waiter of [...this.#waiters]) {
            if (!waiter.predicate(entry))
                continue;
            clearTimeout(waiter.timer);
            this.#waiters = this.#waiters.filter((w) => w !== waiter);
            waiter.resolve(entry);
        }
    }
    /** The first logged request (past or future) matching `predicate`; rejects after `timeoutMs`. */
    waitFor(predicate, timeoutMs = 30_000) {
        const found = this.entries.find(predicate);
        if (found !== undefined)
            return Promise.resolve(found);
        return new Promise((resolve, reject) => {
            const timer = setTimeout(() => {
                this.#waiters = this.#waiters.filter((w) => w.timer !== timer);
                reject(new NeoError('MODEL_WAIT_TIMEOUT', `no matching model request arrived within ${timeoutMs} ms (${this.entries.length} requests so far)`));
            }, timeoutMs);
            this.#waiters.push({ predicate, resolve, reject, timer });
        });
    }
    async close() {
        for (const waiter of this.#waiters) {
            clearTimeout(waiter.timer);
            waiter.reject(new NeoError('MODEL_SERVER_CLOSED', 'the model server closed before a matching request arrived'));
        }
        this.#waiters = [];
        await this.#appender?.close();
    }
}
