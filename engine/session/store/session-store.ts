import { readdir } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { isRunningPid, isSameProcess } from '../../execution/index.js';
import { readJsonOrNull, sweepTempFiles } from '../../util/atomic-file.js';
import { JsonlAppender } from '../../util/jsonl.js';
import { KeyedLock } from '../../util/keyed-lock.js';
import type { PersistedSessionEvent } from '../events.js';
import { isSessionId } from '../ids.js';
import { stderrLog, type SessionLog } from '../log.js';
import { lastSeqInFile, readEventsFile, repairTornTail } from './events-file.js';
import { MetaFile } from './meta-file.js';
import { isRecord, truncateBrief, type CodeSessionRecord, type CodeSessionRun, type RecordPatch } from './record.js';
import { checkId } from '../../util/ids.js';
import { removeProvisionDir } from '../../capabilities/index.js';

export interface StoreOptions {
  log?: SessionLog;
  /** fsync every events.jsonl write (survives power loss, at a cost). Default false: kernel-durable. */
  fsync?: boolean;
  /** Least time between two meta.json writes of a live session (they coalesce). Default 100 ms. */
  metaIntervalMs?: number;
}

/**
 * The durable store under `NEO_HOME/code-sessions/<id>/`: meta.json (atomic, coalesced) and
 * events.jsonl (one serialized appender per session). A write-through mirror of the registry:
 * reads of a missing session are null, never a throw, and write failures are logged, never
 * thrown into an op.
 */
export class CodeSessionStore {
  /** NEO_HOME. */
  readonly home: string;
  readonly root: string;
  readonly #log: SessionLog;
  readonly #fsync: boolean;
  readonly #metaIntervalMs: number;
  readonly #metas = new Map<string, MetaFile>();
  readonly #appenders = new Map<string, JsonlAppender>();
  /** Per session, the appender's current batch promise and its never-rejecting outcome (one per batch). */
  readonly #outcomes = new Map<string, { written: Promise<void>; outcome: Promise<boolean> }>();
  readonly #lock = new KeyedLock();

  constructor(home: string, options: StoreOptions = {}) {
    this.home = home;
    this.root = join(home, 'code-sessions');
    this.#log = options.log ?? stderrLog;
    this.#fsync = options.fsync ?? false;
    this.#metaIntervalMs = options.metaIntervalMs ?? 100;
  }

  sessionDir(sessionId: string): string {
    checkId('session', sessionId);
    return join(this.root, sessionId);
  }

  /** Publishes a new record (the brief cut to 2 KB). */
  async createRecord(record: CodeSessionRecord): Promise<void> {
    const meta = new MetaFile(
      join(this.sessionDir(record.sessionId), 'meta.json'),
      { ...record, taskBrief: truncateBrief(record.taskBrief) },
      this.#log,
      this.#metaIntervalMs,
    );
    this.#metas.set(record.sessionId, meta);
    await meta.save();
  }

  /** The record, or null when there is none (or the id is not a session id). */
  async get(sessionId: string): Promise<CodeSessionRecord | null> {
    const cached = this.#metas.get(sessionId);
    if (cached !== undefined) return structuredClone(cached.record);
    if (!isSessionId(sessionId)) return null;
    const value = await readJsonOrNull(join(this.sessionDir(sessionId), 'meta.json'));
    return isRecord(value) ? value : null;
  }

  /**
   * Read-modify-write under a per-session lock; resolves once the change is on disk. Null when
   * there is no record. `patch` may be a function of the current record. A held (live) record is
   * patched in memory and its writes coalesce; any other is read, patched and written in turn.
   * `final`: the session's last record (its release): written without waiting out the interval.
   */
  async patchMeta(
    sessionId: string,
    patch: RecordPatch | ((record: CodeSessionRecord) => RecordPatch),
    options: { final?: boolean } = {},
  ): Promise<CodeSessionRecord | null> {
    const outcome = await this.#lock.run(sessionId, async () => {
      const held = this.#metas.get(sessionId);
      const meta = held ?? (await this.#load(sessionId));
      if (meta === undefined) return null;
      const changes = typeof patch === 'function' ? patch(meta.record) : patch;
      meta.record = { ...meta.record, ...changes, updatedAt: new Date().toISOString() };
      if (changes.taskBrief !== undefined) meta.record.taskBrief = truncateBrief(changes.taskBrief);
      const snapshot = structuredClone(meta.record);
      if (held !== undefined) return { snapshot, saved: options.final === true ? meta.flush() : meta.save() };
      await meta.save();
      return { snapshot, saved: undefined };
    });
    if (outcome === null) return null;
    await outcome.saved;
    return outcome.snapshot;
  }

  /**
   * Mirrors a live session's state into its held record without waiting or copying: the
   * registry's hot path (a turn changes state twice). With nothing queued for the session the
   * change applies at once, which is the call order; otherwise it queues like any patch. The
   * write coalesces either way.
   */
  mirrorState(sessionId: string, changes: RecordPatch): void {
    const held = this.#metas.get(sessionId);
    if (held === undefined || this.#lock.busy(sessionId)) {
      void this.patchMeta(sessionId, changes);
      return;
    }
    Object.assign(held.record, changes, { updatedAt: new Date().toISOString() });
    void held.save();
  }

  /**
   * Keeps a record in memory as the write-through mirror of a live session (create does this;
   * adopt calls it). Returns the record, or null when there is none.
   */
  async holdRecord(sessionId: string): Promise<CodeSessionRecord | null> {
    return this.#lock.run(sessionId, async () => {
      let meta = this.#metas.get(sessionId);
      if (meta === undefined) {
        meta = await this.#load(sessionId, this.#metaIntervalMs);
        if (meta === undefined) return null;
        this.#metas.set(sessionId, meta);
      }
      return structuredClone(meta.record);
    });
  }

  /** Adds a link to the resume chain. */
  appendRun(sessionId: string, run: CodeSessionRun): Promise<CodeSessionRecord | null> {
    return this.patchMeta(sessionId, (record) => ({ runs: [...record.runs, run] }));
  }

  /** Backfills the backend's session id onto the latest run. */
  setLatestRunExternalSessionId(sessionId: string, externalSessionId: string): Promise<CodeSessionRecord | null> {
    return this.patchMeta(sessionId, (record) => {
      if (record.runs.length === 0) return {};
      const runs = record.runs.map((run) => ({ ...run }));
      runs[runs.length - 1]!.externalSessionId = externalSessionId;
      return { runs };
    });
  }

  /**
   * Prepares events.jsonl for appends: cuts a torn last line a crash left (so the next line
   * starts clean). Call before the first append of an adopted session.
   */
  async openEvents(sessionId: string): Promise<void> {
    const removed = await repairTornTail(this.#eventsPath(sessionId)).catch((error: unknown) => {
      this.#log.warn('code_session_events_repair_failed', { sessionId, error });
      return 0;
    });
    if (removed > 0) this.#log.warn('code_session_events_torn_line_removed', { sessionId, bytes: removed });
  }

  /**
   * Appends one event line; resolves true once it reached the kernel, false (logged) when the
   * write failed. Never rejects. The line is queued in the session's appender at once (so the
   * file's order is the call order); lines appended in the same macrotask are written together
   * and share one promise, which keeps a chatty agent cheap.
   */
  append(sessionId: string, event: PersistedSessionEvent): Promise<boolean> {
    const appender = this.#appender(sessionId);
    const written = appender.appendLine(JSON.stringify(event));
    const last = this.#outcomes.get(sessionId);
    if (last !== undefined && last.written === written) return last.outcome;
    const outcome = written.then(
      () => true,
      (error: unknown) => {
        this.#log.warn('code_session_event_write_failed', { sessionId, error });
        return false;
      },
    );
    this.#outcomes.set(sessionId, { written, outcome });
    return outcome;
  }

  /**
   * Writes what has been appended for a session so far, now, instead of at the end of the
   * macrotask: a caller about to acknowledge a turn does not wait a loop iteration for it.
   */
  flushNow(sessionId: string): void {
    this.#appenders.get(sessionId)?.flushNow();
  }

  #appender(sessionId: string): JsonlAppender {
    let appender = this.#appenders.get(sessionId);
    if (appender === undefined) {
      appender = new JsonlAppender(this.#eventsPath(sessionId), { fsync: this.#fsync });
      this.#appenders.set(sessionId, appender);
    }
    return appender;
  }

  /** Events after `afterSeq` (default 0), at most `limit`; null when the session has no files. */
  async readEvents(
    sessionId: string,
    options: { afterSeq?: number; limit?: number } = {},
  ): Promise<PersistedSessionEvent[] | null> {
    if (!isSessionId(sessionId)) return null;
    await this.#flushEvents(sessionId);
    const events = await readEventsFile(this.#eventsPath(sessionId), sessionId, this.#log);
    if (events === null) return (await this.get(sessionId)) === null ? null : [];
    const after = options.afterSeq ?? 0;
    const selected = events.filter((e) => e.seq > after);
    return options.limit === undefined ? selected : selected.slice(0, options.limit);
  }

  /** The highest persisted seq, 0 when none: an adopted session continues at this + 1. */
  async lastEventSeq(sessionId: string): Promise<number> {
    if (!isSessionId(sessionId)) return 0;
    await this.#flushEvents(sessionId);
    return lastSeqInFile(this.#eventsPath(sessionId));
  }

  /** Every record, newest first. */
  async list(): Promise<CodeSessionRecord[]> {
    let names: string[];
    try {
      names = await readdir(this.root);
    } catch {
      return [];
    }
    const records = await Promise.all(names.filter(isSessionId).map((name) => this.get(name)));
    return records
      .filter((r): r is CodeSessionRecord => r !== null)
      .sort((a, b) =>
        a.createdAt === b.createdAt ? (a.sessionId < b.sessionId ? 1 : -1) : a.createdAt < b.createdAt ? 1 : -1,
      );
  }

  /**
   * Marks every running/idle record orphaned whose owner was a process that is gone. Run once
   * when a process that hosts sessions starts, before it hosts any. A record whose latest run's
   * host still runs (a flow process that outlived a `neo serve` restart) is left alone: it is
   * live, and reattaches. Returns the ids it marked.
   */
  async sweepOrphaned(): Promise<string[]> {
    const swept: string[] = [];
    for (const record of await this.list()) {
      if (record.status !== 'running' && record.status !== 'idle') continue;
      if (this.#metas.has(record.sessionId)) continue;
      const host = record.runs.at(-1)?.host;
      if (host !== undefined && host.pid !== process.pid && isSameProcess(host)) continue;
      await this.patchMeta(record.sessionId, { status: 'orphaned' });
      swept.push(record.sessionId);
    }
    return swept;
  }

  /** Removes the temp files of meta.json writes whose writer was killed between open and rename. */
  async sweepLitter(): Promise<void> {
    await sweepSessionLitter(dirname(this.root));
  }

  /** Flushes and closes one session's files; it can be reopened later (adopt). */
  async closeSession(sessionId: string): Promise<void> {
    this.#outcomes.delete(sessionId);
    // The provisioned MCP config, skills and instructions lived for this session only (the agent has stopped).
    await removeProvisionDir(this.sessionDir(sessionId)).catch((error: unknown) =>
      this.#log.warn('code_session_provision_cleanup_failed', { sessionId, error }),
    );
    const appender = this.#appenders.get(sessionId);
    this.#appenders.delete(sessionId);
    if (appender !== undefined)
      await appender
        .close()
        .catch((error: unknown) => this.#log.warn('code_session_events_close_failed', { sessionId, error }));
    const meta = this.#metas.get(sessionId);
    if (meta !== undefined) {
      await meta.settled();
      if (this.#metas.get(sessionId) === meta) this.#metas.delete(sessionId);
    }
  }

  /** Flushes and closes every open session. */
  async close(): Promise<void> {
    await Promise.all(
      [...new Set([...this.#appenders.keys(), ...this.#metas.keys()])].map((id) => this.closeSession(id)),
    );
  }

  async #flushEvents(sessionId: string): Promise<void> {
    await this.#appenders.get(sessionId)?.flush();
  }

  #eventsPath(sessionId: string): string {
    return join(this.sessionDir(sessionId), 'events.jsonl');
  }

  async #load(sessionId: string, minIntervalMs = 0): Promise<MetaFile | undefined> {
    const record = await this.get(sessionId);
    if (record === null) return undefined;
    return new MetaFile(join(this.sessionDir(sessionId), 'meta.json'), record, this.#log, minIntervalMs);
  }
}

/**
 * Removes, from every session folder under NEO_HOME, the temp files of writes whose writer is
 * no longer running (killed between open and rename); a live writer's are left alone. The
 * daemon sweeps at start, a resumed flow run (whose sessions ran in its own process) at resume.
 */
export async function sweepSessionLitter(home: string): Promise<void> {
  const root = join(home, 'code-sessions');
  const names = await readdir(root).catch(() => [] as string[]);
  await Promise.all(names.filter(isSessionId).map((name) => sweepTempFiles(join(root, name), isRunningPid)));
}
