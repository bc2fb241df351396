import { closeSync, constants, fstatSync, ftruncateSync, lstatSync, readFileSync, writeSync } from 'node:fs';
import { basename, join } from 'node:path';
import {
  beginWriteJsonAtomic,
  readJsonOrNull,
  writeJsonAtomicSync,
  type WriteOptions,
} from '../../util/atomic-file.js';
import { NeoError } from '../../util/errors.js';
import { APPEND_NO_FOLLOW, realFolderSync } from '../../util/no-follow.js';
import { mkdirPrivateSync } from '../../util/private-store.js';
import { processRedact, redactDeep } from '../../util/redact.js';
import { storeKey } from '../../util/store-key.js';
import type { RunEvent } from '../core/events.js';
import type { CompiledPlan } from '../core/plan.js';
import type { RunState } from '../core/state.js';
import { checkRun } from './checked-run.js';
import { CoalescedWriter } from './coalesced-writer.js';
import { openLog, refuseLinks } from './link-guard.js';
import { planHash } from './plan-pin.js';
import { CHAIN_START, parseRunLog, PLAN_PINS, sealLine } from './run-chain.js';
import { RUN_FILES, runDir, type RunRecord } from './run-files.js';
import { openRecord, sealRecord } from './sealed-record.js';
import { tamperedError } from './trust-errors.js';

/**
 * The local file store of one run: events.jsonl (gapless seq, each line chained to the one
 * before by an HMAC: run-chain.ts), snapshot.json and run.json (replaced atomically, coalesced
 * so a burst of transitions costs one write; run.json sealed with its own MAC). An execution
 * waits for {@link durable} on its `step.started` before any side effect, so nothing runs that
 * the log does not already record.
 *
 * Events are appended with a synchronous write, one line each, in the order the machine emits
 * them. It reaches the kernel in microseconds, where an async append waits for a thread-pool
 * round trip that a busy machine stretches to milliseconds — on every step's critical path.
 *
 * The log is written through one descriptor, opened without following a link. Before each line
 * the store checks that the path still names that very file, at the size it wrote: a step that
 * renames a forged log over the live one, or writes into it, fails the run as tampered at the
 * next event (two stat calls a line, no read).
 */
export class RunStore {
  readonly dir: string;
  readonly runId: string;
  readonly #key: Buffer;
  readonly #eventsPath: string;
  #fd: number | undefined;
  #identity: { dev: number; ino: number } | undefined;
  /** The bytes the log holds, by this store's own account. */
  #size = 0;
  #lastMac: string;
  #lastSeq: number;
  /** The hash of the plan the run follows: the next pinning line carries it. */
  #planHash: string;
  #durableSeq: number;
  #appendedSeq: number;
  #waiters: Array<{ seq: number; resolve: () => void; reject: (error: unknown) => void }> = [];
  /** The first files' fsync and rename (see {@link create}); every later write of them waits for it. */
  readonly #created: Promise<void>;
  readonly #snapshot: CoalescedWriter;
  readonly #record: CoalescedWriter;
  #failure: unknown;
  #onFailure: ((error: unknown) => void) | undefined;

  private constructor(
    home: string,
    runId: string,
    chain: { seq: number; mac: string; planHash: string },
    created: Promise<void> = Promise.resolve(),
  ) {
    this.runId = runId;
    this.dir = runDir(home, runId);
    this.#key = storeKey(home);
    this.#created = created;
    this.#snapshot = new CoalescedWriter(created, SNAPSHOT_WRITE);
    this.#record = new CoalescedWriter(created, { private: true });
    this.#eventsPath = join(this.dir, RUN_FILES.events);
    this.#lastSeq = chain.seq;
    this.#lastMac = chain.mac;
    this.#planHash = chain.planHash;
    this.#durableSeq = chain.seq;
    this.#appendedSeq = chain.seq;
  }

  /**
   * Creates a new run's folder with its pinned plan and its sealed manifest, both in place when
   * this returns (a full disk or a bad NEO_HOME fails here, before anything runs; a process
   * killed right after still leaves a listed, resumable run). Their fsync finishes in the
   * background while the run's machine is built, and {@link barrier} waits for it, so no step
   * starts before the run is durable.
   */
  static async create(home: string, record: RunRecord, plan: CompiledPlan): Promise<RunStore> {
    // The run's folder is made here, and never through a link.
    mkdirPrivateSync(join(home, 'runs'));
    const dir = realFolderSync(join(home, 'runs'), basename(runDir(home, record.runId)));
    const key = storeKey(home);
    const created = Promise.all([
      beginWriteJsonAtomic(join(dir, RUN_FILES.plan), plan),
      beginWriteJsonAtomic(
        join(dir, RUN_FILES.record),
        sealRecord(key, redactDeep(record, processRedact()), { seq: 0, mac: CHAIN_START }),
      ),
    ]).then(() => undefined);
    const store = new RunStore(home, record.runId, { seq: 0, mac: CHAIN_START, planHash: planHash(plan) }, created);
    created.catch((error: unknown) => (store.#failure ??= error));
    return store;
  }

  /**
   * Opens an existing run for a new process. Its files are believed only together
   * (checked-run.ts): run.json's MAC, the event chain, the chain point run.json recorded and
   * plan.json's hash against the chain's pin — else STORE_TAMPERED (or STORE_UNAUTHENTICATED for
   * a run recorded before neo authenticated runs), and nothing is written. Then a torn last line
   * is cut, and the log stays open (read through the same descriptor it is appended to).
   */
  static async open(
    home: string,
    runId: string,
  ): Promise<{ store: RunStore; record: RunRecord; plan: CompiledPlan; events: RunEvent[] }> {
    const dir = runDir(home, runId);
    const recordPath = join(dir, RUN_FILES.record);
    const value = await readJsonOrNull<Record<string, unknown>>(recordPath);
    const plan = await readJsonOrNull<CompiledPlan>(join(dir, RUN_FILES.plan));
    if (value === null || typeof value !== 'object' || plan === null) {
      throw new NeoError('FLOW_RUN_NOT_FOUND', `no run \`${runId}\` in ${join(home, 'runs')}`, {
        hint: 'list runs with `neo flow list`',
      });
    }
    realFolderSync(dir);
    const key = storeKey(home);
    const opened = openRecord(key, runId, value, recordPath);
    const path = join(dir, RUN_FILES.events);
    // No log yet (killed before its first event): the first append creates it.
    const fd = openLog(path, constants.O_RDWR | constants.O_APPEND | constants.O_NOFOLLOW);
    try {
      const log = parseRunLog(fd === undefined ? '' : readFileSync(fd, 'utf8'), { key, runId, path });
      const pinned = checkRun(dir, opened, log, plan);
      const store = new RunStore(home, runId, {
        seq: log.events.length,
        mac: log.macs.at(-1) ?? CHAIN_START,
        planHash: pinned,
      });
      if (fd !== undefined) {
        // A torn last line (a crash mid-write) is cut, and a whole one missing its newline ended,
        // so the next append starts on a clean line.
        if (log.torn) ftruncateSync(fd, log.goodBytes);
        else if (log.unterminated) writeSync(fd, '\n');
        store.#adopt(fd);
      }
      return { store, record: opened.record, plan, events: log.events };
    } catch (error) {
      if (fd !== undefined) closeSync(fd);
      throw error;
    }
  }

  /** Called once with the first failure of the store (a tampered log, a planted link, a failed write). */
  onFailure(listener: (error: unknown) => void): void {
    this.#onFailure = listener;
  }

  /** Appends one event; it is in the file (the kernel's page cache) when this returns. */
  append(event: RunEvent): Promise<void> {
    this.#appendedSeq = Math.max(this.#appendedSeq, event.seq);
    if (this.#failure !== undefined) return Promise.reject(this.#failure);
    try {
      const fd = this.#log();
      const pinned = PLAN_PINS.has(event.type) ? { ...event, planHash: this.#planHash } : event;
      const { line, mac } = sealLine(
        this.#key,
        this.runId,
        this.#lastMac,
        JSON.stringify(redactDeep(pinned, processRedact())),
      );
      const text = `${line}\n`;
      const written = writeSync(fd, text);
      this.#size += written;
      if (written !== Buffer.byteLength(text, 'utf8')) throw new Error(`${this.#eventsPath}: short write`);
      this.#lastMac = mac;
      this.#lastSeq = event.seq;
      this.#durableSeq = Math.max(this.#durableSeq, event.seq);
      this.#waiters = this.#waiters.filter((w) => (w.seq <= this.#durableSeq ? (w.resolve(), false) : true));
      return Promise.resolve();
    } catch (error) {
      this.#fail(error);
      return Promise.reject(error);
    }
  }

  /** Resolves once every event up to `seq` is in events.jsonl. */
  durable(seq: number): Promise<void> {
    if (this.#failure !== undefined) return Promise.reject(this.#failure);
    if (seq <= this.#durableSeq) return Promise.resolve();
    return new Promise((resolve, reject) => this.#waiters.push({ seq, resolve, reject }));
  }

  /**
   * Resolves once the run's files and everything appended so far are durable (an execution's
   * start included), and the run's folder holds no link: neo never makes one there, so a link is
   * something a step planted for neo to write or delete through — the run fails as tampered
   * before the next execution starts (one directory read or two).
   */
  async barrier(): Promise<void> {
    await this.#created;
    try {
      refuseLinks(this.dir);
    } catch (error) {
      this.#fail(error);
      throw error;
    }
    return this.durable(this.#appendedSeq);
  }

  /**
   * Schedules snapshot.json to hold `state` (the latest call wins). It is a copy for people and
   * tools; neo never reads it back (the state is the fold of the authenticated events).
   */
  checkpoint(state: RunState, machine: string): void {
    this.#snapshot.write(join(this.dir, RUN_FILES.snapshot), () =>
      redactDeep({ seq: state.seq, machine, state }, processRedact()),
    );
  }

  /**
   * Schedules run.json to hold `record` (the latest call wins), sealed with the chain point it
   * is written at. A function is called only when the write happens: a record folded from the
   * state on every event would mostly be discarded.
   */
  saveRecord(record: RunRecord | (() => RunRecord)): void {
    this.#record.write(join(this.dir, RUN_FILES.record), () =>
      this.#sealed(typeof record === 'function' ? record() : record),
    );
  }

  /**
   * Replaces the pinned plan now (a watched edit, a rebase): the next line that pins a plan
   * (`plan.updated`, `run.resumed`) carries its hash, so the chain and plan.json agree again.
   */
  pinPlan(plan: CompiledPlan): void {
    try {
      writeJsonAtomicSync(join(this.dir, RUN_FILES.plan), plan);
    } catch (error) {
      this.#fail(error);
      throw error;
    }
    this.#planHash = planHash(plan);
  }

  /**
   * Writes the final snapshot and record now, synchronously: for a process about to exit with no
   * event loop left to finish an asynchronous write.
   */
  settleNow(state: RunState, record: RunRecord): void {
    writeJsonAtomicSync(
      join(this.dir, RUN_FILES.snapshot),
      redactDeep({ seq: state.seq, machine: 'settled', state }, processRedact()),
      SNAPSHOT_WRITE,
    );
    writeJsonAtomicSync(join(this.dir, RUN_FILES.record), this.#sealed(record));
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

  #sealed(record: RunRecord): Record<string, unknown> {
    return sealRecord(this.#key, redactDeep(record, processRedact()), { seq: this.#lastSeq, mac: this.#lastMac });
  }

  #adopt(fd: number): void {
    const held = fstatSync(fd);
    this.#fd = fd;
    this.#identity = { dev: held.dev, ino: held.ino };
    this.#size = held.size;
  }

  /**
   * The log's descriptor, checked: the path still names the file it holds, at the size this
   * store wrote. A new run's log is created here, exclusively and never through a link.
   */
  #log(): number {
    if (this.#fd === undefined) {
      this.#adopt(openLog(this.#eventsPath, APPEND_NO_FOLLOW | constants.O_EXCL)!);
      return this.#fd!;
    }
    const held = fstatSync(this.#fd);
    const named = lstatSync(this.#eventsPath, { throwIfNoEntry: false });
    if (named === undefined || named.ino !== this.#identity!.ino || named.dev !== this.#identity!.dev)
      throw tamperedError(this.#eventsPath, 'the log was replaced while the run was writing it');
    if (held.size !== this.#size)
      throw tamperedError(
        this.#eventsPath,
        `the log was written by something other than this run (${held.size} bytes where it wrote ${this.#size})`,
      );
    return this.#fd;
  }

  #fail(error: unknown): void {
    if (this.#failure !== undefined) return;
    this.#failure = error;
    for (const waiter of this.#waiters) waiter.reject(error);
    this.#waiters = [];
    this.#onFailure?.(error);
  }
}

/** snapshot.json, never read back (see {@link RunStore.checkpoint}): no fsync, one less at each run's end. */
const SNAPSHOT_WRITE: WriteOptions = { private: true, durable: false };
