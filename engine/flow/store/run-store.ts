import { closeSync, openSync, writeSync } from 'node:fs';
import { open, readFile, truncate } from 'node:fs/promises';
import { join } from 'node:path';
import { beginWriteJsonAtomic, readJsonOrNull, writeJsonAtomic, writeJsonAtomicSync } from '../../util/atomic-file.js';
import { NeoError } from '../../util/errors.js';
import type { RunEvent } from '../core/events.js';
import type { CompiledPlan } from '../core/plan.js';
import type { RunState } from '../core/state.js';
import { RUN_FILES, runDir, type RunRecord } from './run-files.js';
import { mkdirPrivateSync, PRIVATE_FILE_MODE } from '../../util/private-store.js';
import { environmentRedactor, redactDeep, type Redact } from '../../util/redact.js';

let redactor: Redact | undefined;

/**
 * The one redactor (util/redact.ts) over this process's environment: what a step's command or
 * agent printed, a diff, an error — a secret in any of them is never written to the run's files.
 */
function storeRedact(): Redact {
  return (redactor ??= environmentRedactor(process.env));
}

/**
 * The local file store of one run: events.jsonl (gapless seq), snapshot.json and run.json
 * (replaced atomically, coalesced so a burst of transitions costs one write). An execution
 * waits for {@link durable} on its `step.started` before any side effect, so nothing runs that
 * the log does not already record.
 *
 * Events are appended with a synchronous write, one line each, in the order the machine emits
 * them. It reaches the kernel in microseconds, where an async append waits for a thread-pool
 * round trip that a busy machine stretches to milliseconds — on every step's critical path.
 */
export class RunStore {
  readonly dir: string;
  readonly #eventsPath: string;
  #fd: number | undefined;
  #durableSeq: number;
  #appendedSeq: number;
  #waiters: Array<{ seq: number; resolve: () => void; reject: (error: unknown) => void }> = [];
  /** The first files' fsync and rename (see {@link create}); every later write of them waits for it. */
  readonly #created: Promise<void>;
  readonly #snapshot: CoalescedWriter;
  readonly #record: CoalescedWriter;
  #failure: unknown;
  #outputs: string | undefined;

  private constructor(dir: string, lastSeq: number, created: Promise<void> = Promise.resolve()) {
    this.dir = dir;
    this.#created = created;
    this.#snapshot = new CoalescedWriter(created);
    this.#record = new CoalescedWriter(created);
    this.#eventsPath = join(dir, RUN_FILES.events);
    this.#durableSeq = lastSeq;
    this.#appendedSeq = lastSeq;
  }

  /**
   * Creates a new run's folder with its pinned plan and its manifest, both in place when this
   * returns (a full disk or a bad NEO_HOME fails here, before anything runs; a process killed
   * right after still leaves a listed, resumable run). Their fsync finishes in the background
   * while the run's machine is built, and {@link barrier} waits for it, so no step starts before
   * the run is durable.
   */
  static async create(home: string, record: RunRecord, plan: CompiledPlan): Promise<RunStore> {
    const dir = runDir(home, record.runId);
    const created = Promise.all([
      beginWriteJsonAtomic(join(dir, RUN_FILES.plan), plan),
      beginWriteJsonAtomic(join(dir, RUN_FILES.record), record),
    ]).then(() => undefined);
    const store = new RunStore(dir, 0, created);
    created.catch((error: unknown) => (store.#failure ??= error));
    return store;
  }

  /** Opens an existing run for a new process: repairs a torn last line, checks seq is gapless. */
  static async open(
    home: string,
    runId: string,
  ): Promise<{ store: RunStore; record: RunRecord; plan: CompiledPlan; events: RunEvent[] }> {
    const dir = runDir(home, runId);
    const record = await readJsonOrNull<RunRecord>(join(dir, RUN_FILES.record));
    const plan = await readJsonOrNull<CompiledPlan>(join(dir, RUN_FILES.plan));
    if (record === null || plan === null) {
      throw new NeoError('FLOW_RUN_NOT_FOUND', `no run \`${runId}\` in ${join(home, 'runs')}`, {
        hint: 'list runs with `neo flow list`',
      });
    }
    const events = await readRunEvents(dir, { repair: true });
    return { store: new RunStore(dir, events.at(-1)?.seq ?? 0), record, plan, events };
  }

  /** Appends one event; it is in the file (the kernel's page cache) when this returns. */
  append(event: RunEvent): Promise<void> {
    this.#appendedSeq = Math.max(this.#appendedSeq, event.seq);
    try {
      this.#fd ??= openSync(this.#eventsPath, 'a', PRIVATE_FILE_MODE);
      writeSync(this.#fd, `${storeRedact()(JSON.stringify(event))}\n`);
      this.#durableSeq = Math.max(this.#durableSeq, event.seq);
      this.#waiters = this.#waiters.filter((w) => (w.seq <= this.#durableSeq ? (w.resolve(), false) : true));
      return Promise.resolve();
    } catch (error) {
      this.#failure = error;
      for (const waiter of this.#waiters) waiter.reject(error);
      this.#waiters = [];
      return Promise.reject(error);
    }
  }

  /** Resolves once every event up to `seq` is in events.jsonl. */
  durable(seq: number): Promise<void> {
    if (this.#failure !== undefined) return Promise.reject(this.#failure);
    if (seq <= this.#durableSeq) return Promise.resolve();
    return new Promise((resolve, reject) => this.#waiters.push({ seq, resolve, reject }));
  }

  /** The folder commands write `$NEO_OUTPUT` files into (created once, synchronously: a step's command waits for it). */
  outputsDir(): string {
    if (this.#outputs === undefined) {
      mkdirPrivateSync(join(this.dir, 'outputs'));
      this.#outputs = join(this.dir, 'outputs');
    }
    return this.#outputs;
  }

  /** Resolves once the run's files and everything appended so far are durable (an execution's start included). */
  async barrier(): Promise<void> {
    await this.#created;
    return this.durable(this.#appendedSeq);
  }

  /** Schedules snapshot.json to hold `state` (the latest call wins). */
  checkpoint(state: RunState, machine: string): void {
    this.#snapshot.write(join(this.dir, RUN_FILES.snapshot), () =>
      redactDeep({ seq: state.seq, machine, state }, storeRedact()),
    );
  }

  /**
   * Schedules run.json to hold `record` (the latest call wins). A function is called only when
   * the write happens: a record folded from the state on every event would mostly be discarded.
   */
  saveRecord(record: RunRecord | (() => RunRecord)): void {
    this.#record.write(join(this.dir, RUN_FILES.record), () =>
      redactDeep(typeof record === 'function' ? record() : record, storeRedact()),
    );
  }

  /** Replaces the pinned plan (a watched edit or a rebase). */
  async savePlan(plan: CompiledPlan): Promise<void> {
    await this.#created;
    return writeJsonAtomic(join(this.dir, RUN_FILES.plan), plan);
  }

  /**
   * Writes the final snapshot and record now, synchronously: for a process about to exit with no
   * event loop left to finish an asynchronous write.
   */
  settleNow(state: RunState, record: RunRecord): void {
    const redact = storeRedact();
    writeJsonAtomicSync(
      join(this.dir, RUN_FILES.snapshot),
      redactDeep({ seq: state.seq, machine: 'settled', state }, redact),
    );
    writeJsonAtomicSync(join(this.dir, RUN_FILES.record), redactDeep(record, redact));
  }

  /** Waits for every pending write. */
  async flush(): Promise<void> {
    await this.#created;
    await Promise.all([this.#snapshot.idle(), this.#record.idle()]);
  }

  async close(): Promise<void> {
    await this.flush();
    if (this.#fd !== undefined) closeSync(this.#fd);
    this.#fd = undefined;
  }
}

/**
 * Writes the latest value only, at most once per interval: a burst of transitions costs one
 * write, and the fsyncs of a checkpoint never crowd out the event appends that executions wait
 * on. events.jsonl is the truth; a checkpoint may lag it by one interval, and idle() writes the
 * last value at once. The very first write waits its interval too: a run shorter than that
 * writes each file once, at its end, instead of ending while an async write is in flight.
 */
class CoalescedWriter {
  static readonly INTERVAL_MS = 150;
  /** A write that must land first (the file's creation). */
  readonly #after: Promise<void>;
  #pending: { path: string; produce: () => unknown } | undefined;
  #running: Promise<void> | undefined;
  #wake: (() => void) | undefined;
  #writes = 0;
  #hurry = false;
  #started = false;

  constructor(after: Promise<void>) {
    this.#after = after;
  }

  write(path: string, produce: () => unknown): void {
    this.#pending = { path, produce };
    this.#writes++;
    this.#running ??= this.#loop();
  }

  /**
   * Writes the latest value now and resolves when it is on disk. The last write is synchronous:
   * whoever waits for it (a run's end, an approval) has nothing else to do meanwhile.
   */
  async idle(): Promise<void> {
    const last = this.#pending;
    const writes = this.#writes;
    this.#pending = undefined;
    this.#hurry = true;
    this.#wake?.();
    while (this.#running !== undefined) await this.#running;
    await this.#after;
    this.#hurry = false;
    // A write() while we waited is newer than `last` and its own loop has written it.
    if (last !== undefined && this.#writes === writes) writeJsonAtomicSync(last.path, last.produce());
  }

  async #loop(): Promise<void> {
    try {
      if (!this.#started && !this.#hurry) await this.#pause();
      this.#started = true;
      while (this.#pending !== undefined) {
        await this.#after;
        // idle() may have taken the value meanwhile, and written it itself.
        const next = this.#pending;
        this.#pending = undefined;
        if (next === undefined) break;
        await writeJsonAtomic(next.path, next.produce());
        if (this.#pending === undefined || this.#hurry) continue;
        await this.#pause();
      }
    } finally {
      this.#running = undefined;
    }
  }

  #pause(): Promise<void> {
    return new Promise<void>((resolve) => {
      const timer = setTimeout(done, CoalescedWriter.INTERVAL_MS);
      this.#wake = done;
      function done() {
        clearTimeout(timer);
        resolve();
      }
    }).finally(() => (this.#wake = undefined));
  }
}

/**
 * Reads a run's events. A torn last line (a crash mid-write) is dropped and, with `repair`,
 * cut from the file so the next append starts on a clean line. A bad line anywhere else, or a
 * gap in seq, is corruption and refused.
 */
export async function readRunEvents(dir: string, options: { repair?: boolean } = {}): Promise<RunEvent[]> {
  const path = join(dir, RUN_FILES.events);
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch {
    return [];
  }
  const lines = text.split('\n');
  const events: RunEvent[] = [];
  let goodBytes = 0;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const isLast = i === lines.length - 1 || (i === lines.length - 2 && lines[lines.length - 1] === '');
    if (line === '') continue;
    try {
      events.push(JSON.parse(line) as RunEvent);
      goodBytes += Buffer.byteLength(line, 'utf8') + 1;
    } catch {
      if (!isLast)
        throw new NeoError('STORE_CORRUPT', `${path}:${i + 1}: unreadable event line in the middle of the log`);
      if (options.repair) await truncate(path, goodBytes);
      break;
    }
  }
  if (
    options.repair &&
    text.length > 0 &&
    !text.endsWith('\n') &&
    events.length > 0 &&
    goodBytes > Buffer.byteLength(text, 'utf8')
  ) {
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
