/**
 * The registry of live code sessions: ids to sessions, ownership scopes, scope constraints, and
 * the one event seam (seed 004 §5). Every state change of every session funnels through
 * `write`: the seq is already assigned, listeners are told (each isolated), the store persists.
 */
import { acknowledgeProvision } from '../capabilities/index.js';
import type { Effort } from '../definitions/index.js';
import type { ScopeConstraints, StopOutcome } from './contract.js';
import { SessionRejection, sessionNotFound } from './errors.js';
import type { PersistedSessionEvent, SessionLiveEvent } from './events.js';
import { LiveSession, type SessionHooks } from './live-session.js';
import type { SessionLog } from './log.js';
import { statusOf, type ReleaseReason, type SessionStateName } from './machine.js';
import { METRICS, type MetricsSink } from './metrics.js';
import type { CodeSessionStore } from './store/session-store.js';
import { newRun, type CodeSessionRecord } from './store/record.js';
import { defined } from '../util/defined.js';

/** How long release waits for a transport's stop and for the event stream to drain. */
const STOP_GRACE_MS = 10_000;
const DRAIN_GRACE_MS = 2_000;

export interface CreateRecordInfo {
  brief: string;
  taskTags: string[];
  model?: string;
  effort?: Effort;
  /** What capability curation did for it, on the record from its first write. */
  provision?: CodeSessionRecord['provision'];
}

/** Told once per released session (the learning loop records its outcome). */
export type ReleasedHook = (released: {
  sessionId: string;
  scope: string;
  durationMs: number;
  /** Where the session's record and events are. */
  store: CodeSessionStore;
}) => Promise<void>;

export class SessionRegistry {
  readonly store: CodeSessionStore;
  readonly #log: SessionLog;
  readonly #metrics: MetricsSink;
  readonly #live = new Map<string, LiveSession>();
  /** Sessions of this process that were released, with their owner (stop is idempotent for them). */
  readonly #released = new Map<string, string>();
  readonly #constraints = new Map<string, ScopeConstraints>();
  readonly #listeners = new Set<(event: SessionLiveEvent) => void>();
  readonly #releasing = new Map<string, Promise<void>>();
  readonly #onReleased: ReleasedHook | undefined;

  /** The hooks every session is built with. */
  readonly hooks: SessionHooks;

  constructor(options: { store: CodeSessionStore; log: SessionLog; metrics: MetricsSink; onReleased?: ReleasedHook }) {
    this.store = options.store;
    this.#onReleased = options.onReleased;
    this.#log = options.log;
    this.#metrics = options.metrics;
    this.hooks = {
      write: (session, line) => this.#write(session, line),
      flush: (session) => this.store.flushNow(session.id),
      stateChanged: (session, state) => this.#stateChanged(session, state),
      started: (session, info) => {
        if (info.externalSessionId !== undefined)
          void this.store.setLatestRunExternalSessionId(session.id, info.externalSessionId);
        if (info.model !== undefined)
          void this.store.patchMeta(session.id, (record) => (record.model === undefined ? { model: info.model } : {}));
      },
      provisioned: (session) =>
        void this.store.patchMeta(session.id, (record) =>
          record.provision === undefined || session.provisionReport === undefined
            ? {}
            : { provision: acknowledgeProvision(record.provision, session.provisionReport) },
        ),
    };
  }

  /** Registers a freshly started session: publishes its record, then writes `created` as seq 1. */
  async create(session: LiveSession, info: CreateRecordInfo): Promise<void> {
    if (this.#live.has(session.id))
      throw new SessionRejection('SESSION_ALREADY_LIVE', `code session \`${session.id}\` is already live`);
    const now = new Date().toISOString();
    const context = session.snapshot.context;
    await this.store.createRecord({
      sessionId: session.id,
      backendId: session.backendId,
      cwd: session.cwd,
      ...defined({ model: info.model, effort: info.effort, provision: info.provision }),
      maxPosture: context.maxPosture,
      posture: context.posture,
      maxRounds: context.maxRounds,
      taskBrief: info.brief,
      taskTags: info.taskTags,
      status: 'running',
      state: 'starting',
      createdAt: now,
      updatedAt: now,
      roundsElapsed: 0,
      runs: [newRun(session.ownerScope, now)],
      version: 1,
    });
    this.#live.set(session.id, session);
    const created = {
      type: 'created' as const,
      backend: session.backendId,
      posture: context.posture,
      maxPosture: context.maxPosture,
      maxRounds: context.maxRounds,
      ...defined({ model: info.model, effort: info.effort }),
    };
    await session.begin(1, created);
    this.#log.info('code_session_created', {
      sessionId: session.id,
      backend: session.backendId,
      scope: session.ownerScope,
    });
  }

  /**
   * Revives a record under its own id: events continue at lastEventSeq + 1 (gapless, also across
   * a restart) and the round budget continues. Appends a run to the resume chain unless the
   * caller (a resume route) already did.
   */
  async adopt(session: LiveSession, options: { appendRun?: boolean; resumeSessionId?: string } = {}): Promise<void> {
    if (this.#live.has(session.id))
      throw new SessionRejection(
        'SESSION_ALREADY_LIVE',
        `code session \`${session.id}\` is still live; it cannot be adopted`,
        { hint: 'stop it first, or keep driving it' },
      );
    const record = await this.store.holdRecord(session.id);
    if (record === null)
      throw new SessionRejection('SESSION_ADOPT_NOT_FOUND', `no code session record \`${session.id}\` to adopt`);
    await this.store.openEvents(session.id);
    const nextSeq = (await this.store.lastEventSeq(session.id)) + 1;
    const context = session.snapshot.context;
    const now = new Date().toISOString();
    if (options.appendRun !== false) await this.store.appendRun(session.id, newRun(session.ownerScope, now));
    // A resumed session has no verdict yet: the last run's goes (it stays in that run's `released` event).
    await this.store.patchMeta(session.id, {
      status: 'running',
      state: 'starting',
      posture: context.posture,
      maxRounds: context.maxRounds,
      outcome: undefined,
      note: undefined,
    });
    this.#released.delete(session.id);
    this.#live.set(session.id, session);
    await session.begin(nextSeq, {
      type: 'adopted',
      backend: session.backendId,
      posture: context.posture,
      maxPosture: context.maxPosture,
      maxRounds: context.maxRounds,
      roundsElapsed: context.roundsElapsed,
      ...defined({ resumeSessionId: options.resumeSessionId }),
    });
    this.#log.info('code_session_adopted', { sessionId: session.id, nextSeq });
  }

  /** The live session `sessionId` owned by `scope`; a foreign or unknown id is SESSION_NOT_FOUND. */
  get(sessionId: string, scope: string): LiveSession {
    const session = this.#live.get(sessionId);
    if (session === undefined || session.ownerScope !== scope) throw sessionNotFound(sessionId);
    return session;
  }

  /** The live session regardless of owner (a person's guidance from the control plane). */
  find(sessionId: string): LiveSession | undefined {
    return this.#live.get(sessionId);
  }

  /** Whether `scope` owned `sessionId` and it was released (in this process or, per the store, before). */
  async wasReleasedBy(sessionId: string, scope: string): Promise<boolean> {
    if (this.#released.get(sessionId) === scope) return true;
    if (this.#live.has(sessionId)) return false;
    const record = await this.store.get(sessionId);
    return record !== null && record.runs.some((run) => run.ownerScopeId === scope);
  }

  /** Whether a release of `sessionId` is under way. */
  isReleasing(sessionId: string): boolean {
    return this.#releasing.has(sessionId);
  }

  /** Stops the transport, writes `released` as the last event and forgets the session. Idempotent. */
  release(
    session: LiveSession,
    reason: ReleaseReason,
    verdict: { outcome?: StopOutcome; note?: string } = {},
  ): Promise<void> {
    const existing = this.#releasing.get(session.id);
    if (existing !== undefined) return existing;
    const done = this.#release(session, reason, verdict).finally(() => this.#releasing.delete(session.id));
    this.#releasing.set(session.id, done);
    return done;
  }

  async #release(
    session: LiveSession,
    reason: ReleaseReason,
    verdict: { outcome?: StopOutcome; note?: string },
  ): Promise<void> {
    session.markStopping();
    await withTimeout(session.agent.stop(), STOP_GRACE_MS).catch((error: unknown) =>
      this.#log.warn('code_session_agent_stop_failed', { sessionId: session.id, error }),
    );
    await withTimeout(session.pump, DRAIN_GRACE_MS).catch(() => undefined);
    const context = session.snapshot.context;
    const released = {
      type: 'released' as const,
      reason,
      ...defined({ outcome: verdict.outcome, note: verdict.note }),
    };
    await session.close(released);
    this.#live.delete(session.id);
    this.#released.set(session.id, session.ownerScope);
    const final = session.snapshot.context;
    await this.store.patchMeta(
      session.id,
      {
        status: statusOf('released', final),
        state: 'released',
        roundsElapsed: context.roundsElapsed,
        ...defined({ costUsd: context.costUsd, outcome: verdict.outcome, note: verdict.note }),
      },
      { final: true },
    );
    await this.store.closeSession(session.id);
    this.#metrics.increment(METRICS.released, { reason });
    this.#metrics.observe(METRICS.rounds, context.roundsElapsed);
    const durationMs = Date.now() - session.startedAt;
    this.#metrics.observe(METRICS.durationMs, durationMs);
    this.#log.info('code_session_released', { sessionId: session.id, reason });
    if (this.#onReleased !== undefined && this.#constraints.get(session.ownerScope)?.ownOutcomes !== true) {
      // Advisory: a failed outcome write never fails the release.
      await this.#onReleased({ sessionId: session.id, scope: session.ownerScope, durationMs, store: this.store }).catch(
        (error: unknown) => this.#log.warn('code_session_outcome_failed', { sessionId: session.id, error }),
      );
    }
  }

  /** Releases every session `scope` opened and clears its constraints (the settle sweep). */
  async releaseAllOwnedBy(scope: string): Promise<void> {
    const owned = [...this.#live.values()].filter((s) => s.ownerScope === scope);
    await Promise.all(owned.map((s) => this.release(s, 'sweep')));
    this.#constraints.delete(scope);
    if (owned.length > 0) this.#log.info('code_session_scope_swept', { scope, sessions: owned.length });
  }

  /** Releases every live session (process shutdown). */
  async releaseAll(reason: ReleaseReason = 'lifetime'): Promise<void> {
    await Promise.all([...this.#live.values()].map((s) => this.release(s, reason)));
  }

  /** Blocks until the session's next notification. */
  awaitNextEvent(sessionId: string, scope: string) {
    return this.get(sessionId, scope).next();
  }

  setScopeConstraints(scope: string, constraints: ScopeConstraints): void {
    this.#constraints.set(scope, {
      ...constraints,
      ...(constraints.allowedTools ? { allowedTools: [...constraints.allowedTools] } : {}),
    });
  }

  scopeConstraints(scope: string): ScopeConstraints | undefined {
    return this.#constraints.get(scope);
  }

  /** Adoption is one-shot: after the first start adopts, later starts in the scope mint fresh. */
  clearAdoptConstraint(scope: string): void {
    const constraints = this.#constraints.get(scope);
    if (constraints?.adoptRecordId === undefined) return;
    const { adoptRecordId: _used, ...rest } = constraints;
    this.#constraints.set(scope, rest);
  }

  onSessionEvent(listener: (event: SessionLiveEvent) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  liveSessions(): LiveSession[] {
    return [...this.#live.values()];
  }

  #write(session: LiveSession, line: PersistedSessionEvent): Promise<boolean> {
    if (this.#listeners.size > 0) {
      const live: SessionLiveEvent = { sessionId: session.id, ownerScope: session.ownerScope, ...line };
      for (const listener of this.#listeners) {
        try {
          listener(live);
        } catch (error) {
          this.#log.warn('code_session_listener_failed', { sessionId: session.id, error });
        }
      }
    }
    return this.store.append(session.id, line);
  }

  #stateChanged(session: LiveSession, state: SessionStateName): void {
    if (state === 'released') return; // release patches the record itself, with the verdict.
    const context = session.snapshot.context;
    this.store.mirrorState(session.id, {
      status: statusOf(state, context),
      state,
      posture: context.posture,
      roundsElapsed: context.roundsElapsed,
      ...defined({ costUsd: context.costUsd }),
    });
  }
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms`)), ms);
    promise.then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      (error: unknown) => {
        clearTimeout(timer);
        reject(error);
      },
    );
  });
}
