var _a;
import { mkdir, open, readFile, truncate } from 'node:fs/promises';
import { join } from 'node:path';
import { readJsonOrNull, writeJsonAtomic } from '../../util/atomic-file.js';
import { NeoError } from '../../util/errors.js';
import { JsonlAppender } from '../../util/jsonl.js';
import { RUN_FILES, runDir } from './run-files.js';
/**
 * The local file store of one run: events.jsonl (one serialized appender, gapless seq),
 * snapshot.json and run.json (replaced atomically, coalesced so a burst of transitions costs
 * one write). An execution waits for {@link durable} on its `step.started` before any side
 * effect, so nothing runs that the log does not already record.
 */
export class RunStore {
    dir;
    #events;
    #durableSeq;
    #appendedSeq;
    #waiters = [];
    #snapshot = new CoalescedWriter();
    #record = new CoalescedWriter();
    #failure;
    #outputs;
    constructor(dir, lastSeq) {
        this.dir = dir;
        this.#events = new JsonlAppender(join(dir, RUN_FILES.events));
        this.#durableSeq = lastSeq;
        this.#appendedSeq = lastSeq;
    }
    /** Creates a new run's folder with its manifest and pinned plan. */
    static async create(home, record, plan) {
        const dir = runDir(home, record.runId);
        await mkdir(dir, { recursive: true });
        await Promise.all([writeJsonAtomic(join(dir, RUN_FILES.plan), plan), writeJsonAtomic(join(dir, RUN_FILES.record), record)]);
        return new RunStore(dir, 0);
    }
    /** Opens an existing run for a new process: repairs a torn last line, checks seq is gapless. */
    static async open(home, runId) {
        const dir = runDir(home, runId);
        const record = await readJsonOrNull(join(dir, RUN_FILES.record));
        const plan = await readJsonOrNull(join(dir, RUN_FILES.plan));
        if (record === null || plan === null) {
            throw new NeoError('FLOW_RUN_NOT_FOUND', `no run \`${runId}\` in ${join(home, 'runs')}`, { hint: 'list runs with `neo flow list`' });
        }
        const events = await readRunEvents(dir, { repair: true });
        return { store: new RunStore(dir, events.at(-1)?.seq ?? 0), record, plan, events };
    }
    /** Appends one event; resolves once it reached the file. */
    append(event) {
        this.#appendedSeq = Math.max(this.#appendedSeq, event.seq);
        const written = this.#events.append(event).then(() => {
            this.#durableSeq = Math.max(this.#durableSeq, event.seq);
            this.#waiters = this.#waiters.filter((w) => (w.seq <= this.#durableSeq ? (w.resolve(), false) : true));
        }, (error) => {
            this.#failure = error;
            for (const waiter of this.#waiters)
                waiter.reject(error);
            this.#waiters = [];
        });
        return written;
    }
    /** Resolves once every event up to `seq` is in events.jsonl. */
    durable(seq) {
        if (this.#failure !== undefined)
            return Promise.reject(this.#failure);
        if (seq <= this.#durableSeq)
            return Promise.resolve();
        return new Promise((resolve, reject) => this.#waiters.push({ seq, resolve, reject }));
    }
    /** The folder commands write `$NEO_OUTPUT` files into (created once). */
    outputsDir() {
        this.#outputs ??= mkdir(join(this.dir, 'outputs'), { recursive: true }).then(() => join(this.dir, 'outputs'));
        return this.#outputs;
    }
    /** Resolves once everything appended so far is durable (an execution's start included). */
    barrier() {
        return this.durable(this.#appendedSeq);
    }
    /** Schedules snapshot.json to hold `state` (the latest call wins). */
    checkpoint(state, machine) {
        this.#snapshot.write(join(this.dir, RUN_FILES.snapshot), { seq: state.seq, machine, state });
    }
    /** Schedules run.json to hold `record` (the latest call wins). */
    saveRecord(record) {
        this.#record.write(join(this.dir, RUN_FILES.record), record);
    }
    /** Replaces the pinned plan (a watched edit or a rebase). */
    savePlan(plan) {
        return writeJsonAtomic(join(this.dir, RUN_FILES.plan), plan);
    }
    /** Waits for every pending write. */
    async flush() {
        await this.#events.flush();
        await this.#snapshot.idle();
        await this.#record.idle();
    }
    async close() {
        await this.flush();
        await this.#events.close();
    }
}
/**
 * Writes the latest value only, at most once per interval: a burst of transitions costs one
 * write, and the fsyncs of a checkpoint never crowd out the event appends that executions wait
 * on. events.jsonl is the truth; a checkpoint may lag it by one interval, and idle() writes the
 * last value at once.
 */
class CoalescedWriter {
    static INTERVAL_MS = 150;
    #pending;
    #running;
    #wake;
    #hurry = false;
    write(path, value) {
        this.#pending = { path, value };
        this.#running ??= this.#loop();
    }
    async idle() {
        this.#hurry = true;
        this.#wake?.();
        while (this.#running !== undefined)
            await this.#running;
        this.#hurry = false;
    }
    async #loop() {
        try {
            while (this.#pending !== undefined) {
                const { path, value } = this.#pending;
                this.#pending = undefined;
                await writeJsonAtomic(path, value);
                if (this.#pending === undefined || this.#hurry)
                    continue;
                await new Promise((resolve) => {
                    const timer = setTimeout(resolve, _a.INTERVAL_MS);
                    this.#wake = () => {
                        clearTimeout(timer);
                        resolve();
                    };
                });
                this.#wake = undefined;
            }
        }
        finally {
            this.#running = undefined;
        }
    }
}
_a = CoalescedWriter;
/**
 * Reads a run's events. A torn last line (a crash mid-write) is dropped and, with `repair`,
 * cut from the file so the next append starts on a clean line. A bad line anywhere else, or a
 * gap in seq, is corruption and refused.
 */
export async function readRunEvents(dir, options = {}) {
    const path = join(dir, RUN_FILES.events);
    let text;
    try {
        text = await readFile(path, 'utf8');
    }
    catch {
        return [];
    }
    const lines = text.split('\n');
    const events = [];
    let goodBytes = 0;
    for (let i = 0; i < lines.length; i++) {
        const line = lines[i];
        const isLast = i === lines.length - 1 || (i === lines.length - 2 && lines[lines.length - 1] === '');
        if (line === '')
            continue;
        try {
            events.push(JSON.parse(line));
            goodBytes += Buffer.byteLength(line, 'utf8') + 1;
        }
        catch {
            if (!isLast)
                throw new NeoError('STORE_CORRUPT', `${path}:${i + 1}: unreadable event line in the middle of the log`);
            if (options.repair)
                await truncate(path, goodBytes);
            break;
        }
    }
    if (options.repair && text.length > 0 && !text.endsWith('\n') && events.length > 0 && goodBytes > Buffer.byteLength(text, 'utf8')) {
        // The last line parsed but lacks its newline: add it so the next append starts clean.
        const handle = await open(path, 'a');
        await handle.write('\n');
        await handle.close();
    }
    events.forEach((event, index) => {
        if (event.seq !== index + 1)
            throw new NeoError('STORE_CORRUPT', `${path}: event ${index + 1} has seq ${event.seq}; the log has a gap`);
    });
    return events;
}
