import { open, readFile, mkdir } from 'node:fs/promises';
import { dirname } from 'node:path';
/**
 * One serialized appender per JSONL file. Lines queued while a write is in flight are written
 * together in the next single `write` (group commit), so order is the call order and a burst of
 * events costs one syscall. A write reaches the kernel before `append` resolves, so a killed
 * process loses nothing it acknowledged; `fsync: true` also survives power loss, at a cost.
 */
export class JsonlAppender {
    path;
    #fsync;
    #handle;
    #pending = [];
    #waiters = [];
    #flushing;
    #closed = false;
    constructor(path, options = {}) {
        this.path = path;
        this.#fsync = options.fsync ?? false;
    }
    /** Queues one record (serialized as a single line) and resolves once it is written. */
    append(record) {
        return this.appendLine(JSON.stringify(record));
    }
    /** Queues one pre-serialized line (must contain no newline). */
    appendLine(line) {
        if (this.#closed)
            return Promise.reject(new Error(`appender for ${this.path} is closed`));
        this.#pending.push(`${line}\n`);
        const done = new Promise((resolve, reject) => this.#waiters.push({ resolve, reject }));
        this.#flushing ??= this.#flushLoop();
        return done;
    }
    /** Waits for everything queued so far. */
    async flush() {
        while (this.#flushing !== undefined)
            await this.#flushing;
    }
    /** Flushes and closes the file; later appends reject. Idempotent. */
    async close() {
        await this.flush();
        this.#closed = true;
        const handle = this.#handle;
        this.#handle = undefined;
        if (handle !== undefined)
            await (await handle).close();
    }
    async #flushLoop() {
        try {
            while (this.#pending.length > 0) {
                const chunk = this.#pending.join('');
                const waiters = this.#waiters;
                this.#pending = [];
                this.#waiters = [];
                try {
                    const handle = await this.#open();
                    await handle.write(chunk);
                    if (this.#fsync)
                        await handle.sync();
                    for (const waiter of waiters)
                        waiter.resolve();
                }
                catch (error) {
                    for (const waiter of waiters)
                        waiter.reject(error);
                }
            }
        }
        finally {
            this.#flushing = undefined;
        }
    }
    #open() {
        this.#handle ??= mkdir(dirname(this.path), { recursive: true }).then(() => open(this.path, 'a'));
        return this.#handle;
    }
}
/**
 * Reads every parsable line. A missing file reads as empty; an unparsable line is skipped and
 * reported in `badLines` so the caller can warn, never throw.
 */
export async function readJsonl(path) {
    let text;
    try {
        text = await readFile(path, 'utf8');
    }
    catch {
        return { records: [], badLines: [] };
    }
    return parseJsonl(text);
}
/** Parses JSONL text; see {@link readJsonl}. */
export function parseJsonl(text) {
    const records = [];
    const badLines = [];
    const lines = text.split('\n');
    for (let i = 0; i < lines.length; i++) {
        const line = lines[i];
        if (line.trim() === '')
            continue;
        try {
            records.push(JSON.parse(line));
        }
        catch {
            badLines.push(i + 1);
        }
    }
    return { records, badLines };
}
