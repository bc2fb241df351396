/**
 * One live code session: the transport's AgentSession, its lifecycle actor, the event pump and
 * the notification queue read-turn consumes, and the driver's side (answers, guidance, close).
 * What each agent event does is agent-events.ts; the questions both sides share, clarifications.ts.
 * Every state change goes through `emit`, which assigns the per-session seq, tells the registry's
 * listeners and persists; a notification is handed to a reader only after the events it reports
 * are written (acknowledged = durable).
 */
import { createActor, type Actor } from 'xstate';
import type { Backend, Effort, Posture } from '../definitions/index.js';
import { keepAlive } from '../execution/index.js';
import type { AgentEvent, AgentSession } from '../transports/index.js';
import { AgentEvents } from './agent-events.js';
import { Clarifications } from './clarifications.js';
import type { TurnDiffCapture } from './diff/capture.js';
import type { PersistedSessionEvent, SessionAnnotation, SessionEventPayload } from './events.js';
import type { SessionLog } from './log.js';
import { IdleTimer } from './idle-timer.js';
import {
  isLiveState,
  sessionMachine,
  stateName,
  type ActivityWatch,
  type SessionSnapshot,
  type SessionStateName,
} from './machine.js';
import { NotificationQueue, type Notification } from './notifications.js';
import { RoundHistoryLog } from './round-history.js';
import { redactDeep, type Redact } from '../util/redact.js';
import type { SessionClock } from './clock.js';
import { defined } from '../util/defined.js';

/** What the registry does with a session's side effects. */
export interface SessionHooks {
  /** Persist + fan out one line (never throws). */
  write(session: LiveSession, line: PersistedSessionEvent): Promise<boolean>;
  /** Write what is queued now rather than at the end of the loop iteration. */
  flush(session: LiveSession): void;
  /** The lifecycle state changed. */
  stateChanged(session: LiveSession, state: SessionStateName): void;
  /** The transport reported its own session id or model. */
  started(session: LiveSession, info: { externalSessionId?: string; model?: string }): void;
  /** The transport said what it did with the capability plan (`provisionReport` holds it from then on). */
  provisioned(session: LiveSession): void;
}

export interface LiveSessionInit {
  sessionId: string;
  ownerScope: string;
  backendId: string;
  descriptor: Backend;
  cwd: string;
  agent: AgentSession;
  capture: TurnDiffCapture;
  posture: Posture;
  maxPosture: Posture;
  maxRounds: number;
  roundsElapsed: number;
  idleTimeoutMs: number;
  clock: SessionClock;
  hooks: SessionHooks;
  log: SessionLog;
  /** The redactor every string of this session passes before it is kept, shown or handed on. */
  redact?: Redact;
}

const NOT_WRITTEN = Promise.resolve(false);

export class LiveSession {
  readonly id: string;
  readonly ownerScope: string;
  readonly backendId: string;
  /** What the transport said it did with the capability plan, once it said it. */
  provisionReport: Extract<AgentEvent, { type: 'provision' }> | undefined;
  readonly descriptor: Backend;
  readonly cwd: string;
  readonly agent: AgentSession;
  readonly startedAt: number;
  readonly history = new RoundHistoryLog();
  readonly #capture: TurnDiffCapture;
  readonly #hooks: SessionHooks;
  readonly #log: SessionLog;
  readonly #clock: SessionClock;
  readonly #redact: Redact;
  readonly #watch: ActivityWatch;
  readonly #idle: IdleTimer;
  readonly #actor: Actor<typeof sessionMachine>;
  readonly #queue = new NotificationQueue();
  readonly #clarifications = new Clarifications(this.#queue);
  readonly #events: AgentEvents;
  readonly #buffer: AgentEvent[] = [];
  #seq = 1;
  #atMs = Number.NaN;
  #atIso = '';
  #state: SessionStateName = 'starting';
  #closed = false;
  #stopping = false;
  #begun = false;
  #flushing: Promise<void> | undefined;
  #lastWrite: Promise<boolean> = NOT_WRITTEN;
  #beginSignal!: () => void;
  /** The agent may answer in ten minutes or never: until the session settles, the process stays. */
  readonly #letGo = keepAlive();
  readonly #begin = new Promise<void>((resolve) => (this.#beginSignal = resolve));
  readonly pump: Promise<void>;

  constructor(init: LiveSessionInit) {
    this.id = init.sessionId;
    this.ownerScope = init.ownerScope;
    this.backendId = init.backendId;
    this.descriptor = init.descriptor;
    this.cwd = init.cwd;
    this.agent = init.agent;
    this.#capture = init.capture;
    this.#hooks = init.hooks;
    this.#log = init.log;
    this.#clock = init.clock;
    this.#redact = init.redact ?? ((text) => text);
    this.startedAt = init.clock.now();
    this.#watch = { lastAt: init.clock.now(), now: () => init.clock.now() };
    this.#actor = createActor(sessionMachine, {
      input: {
        posture: init.posture,
        maxPosture: init.maxPosture,
        maxRounds: init.maxRounds,
        roundsElapsed: init.roundsElapsed,
        idleTimeoutMs: init.idleTimeoutMs,
        watch: this.#watch,
      },
      clock: init.clock,
    });
    this.#idle = new IdleTimer(init.clock, this.#watch, init.idleTimeoutMs, () =>
      this.#actor.send({ type: 'agent.idle' }),
    );
    this.#events = new AgentEvents({
      session: this,
      actor: this.#actor,
      queue: this.#queue,
      clarifications: this.#clarifications,
      capture: init.capture,
      watch: this.#watch,
      clock: init.clock,
      redact: this.#redact,
      log: init.log,
      started: (info) => this.#hooks.started(this, info),
      provisioned: (report) => {
        this.provisionReport = report;
        this.#hooks.provisioned(this);
      },
      stopAgent: () => this.#stopAgent(),
    });
    // Pull events at once: anything the agent emits before registration is buffered in order.
    this.pump = this.#runPump();
  }

  get state(): SessionStateName {
    return this.#state;
  }

  get snapshot(): SessionSnapshot {
    return this.#actor.getSnapshot();
  }

  get nextSeq(): number {
    return this.#seq;
  }

  /** Registration done: seq starts at `nextSeq`, `first` is written, buffered events flush in order. */
  begin(nextSeq: number, first: SessionAnnotation): Promise<boolean> {
    this.#seq = nextSeq;
    this.#actor.subscribe((snapshot) => this.#onSnapshot(snapshot));
    this.#actor.start();
    this.#idle.start();
    const written = this.emit(first);
    this.#begun = true;
    this.#flushing = (async () => {
      for (const event of this.#buffer.splice(0)) await this.#events.handle(event);
    })();
    this.#beginSignal();
    return written;
  }

  /** Registration failed: stop buffering and let the pump end. */
  abandon(): void {
    this.#closed = true;
    this.#letGo();
    void this.#capture.close();
    this.#beginSignal();
  }

  /** Assigns the next seq, fans out and persists. A no-op once released. */
  emit(event: SessionEventPayload): Promise<boolean> {
    if (this.#closed) return NOT_WRITTEN;
    // Every string kept passes the redactor: an agent event, a diff, guidance, an answer's reason.
    const line: PersistedSessionEvent = {
      seq: this.#seq++,
      at: this.#isoNow(),
      event: redactDeep(event, this.#redact),
    };
    this.#lastWrite = this.#hooks.write(this, line);
    return this.#lastWrite;
  }

  /** Resolves once every event emitted so far is written (and writes it now). */
  durable(): Promise<boolean> {
    this.#hooks.flush(this);
    return this.#lastWrite;
  }

  /** The next notification for read-turn; an aborted wait consumes nothing. */
  next(signal?: AbortSignal): Promise<Notification> {
    return this.#queue.next(signal);
  }

  pendingClarification(clarificationId: string): { toolName: string } | undefined {
    return this.#clarifications.get(clarificationId);
  }

  /** Sends an op event to the machine (the machine decides whether it applies). */
  send(event: Parameters<Actor<typeof sessionMachine>['send']>[0]): void {
    // Waiting on the driver is not idleness: the agent's clock restarts when it gets control back.
    if (event.type === 'op.answer' || event.type === 'op.guide' || event.type === 'op.interrupt')
      this.#watch.lastAt = this.#clock.now();
    this.#actor.send(event);
  }

  /** Records an answer: the machine, the pinned history and the deny reason to carry forward. */
  recordAnswer(
    clarificationId: string,
    decision: { allow: boolean; reason?: string; note?: string },
    by: string,
  ): { toolName: string } {
    const pending = this.#clarifications.settle(clarificationId)!;
    const round = this.snapshot.context.roundsElapsed + 1;
    const entry = {
      clarificationId,
      toolName: pending.toolName,
      allow: decision.allow,
      ...defined({ reason: decision.reason }),
    };
    this.history.pinClarification(round, entry);
    if (!decision.allow && decision.reason !== undefined && decision.reason.trim() !== '') {
      this.#clarifications.carryDenial(pending.toolName, decision.reason);
    }
    const d: { allow: boolean; reason?: string; note?: string } = { allow: decision.allow };
    if (decision.reason !== undefined) d.reason = decision.reason;
    if (decision.note !== undefined) d.note = decision.note;
    this.emit({
      type: 'clarification',
      clarificationId,
      toolName: pending.toolName,
      decision: d,
      by,
      ...defined({ ask: pending.ask }),
    });
    this.send({ type: 'op.answer', clarificationId });
    return pending;
  }

  /** Guidance text with any deny reasons carried forward, emitted as guidance events. */
  composeGuidance(text: string, source: 'driver' | 'user', switchTo?: { model?: string; effort?: Effort }): string {
    const carried = this.#clarifications.takeDenials();
    for (const reason of carried) this.emit({ type: 'guidance', source: 'deny', text: reason });
    const event: SessionAnnotation = { type: 'guidance', source, text };
    if (switchTo?.model !== undefined) event.model = switchTo.model;
    if (switchTo?.effort !== undefined) event.effort = switchTo.effort;
    this.emit(event);
    if (source === 'user') this.history.pinUserGuidance(this.snapshot.context.roundsElapsed + 1, text);
    return carried.length === 0 ? text : `${carried.join('\n')}\n\n${text}`;
  }

  /** Drops pending clarifications (an interrupt aborts the turn that raised them). */
  dropPending(): void {
    this.#clarifications.drop();
  }

  /** The registry is stopping the agent: the stream's end is expected, not a failure. */
  markStopping(): void {
    this.#stopping = true;
  }

  /**
   * Ends the session's life: machine to released, `released` written as the last event, every
   * waiting reader answered. The transport is stopped by the registry before this.
   */
  close(last: SessionAnnotation): Promise<boolean> {
    this.#actor.send({ type: 'op.release', reason: last.type === 'released' ? last.reason : 'explicit' });
    const written = this.emit(last);
    this.#closed = true;
    this.#letGo();
    void this.#capture.close();
    this.#idle.stop();
    this.#actor.stop();
    this.#queue.close({ kind: 'ended', ok: false, text: 'the session was released' });
    this.#beginSignal();
    return written;
  }

  get closed(): boolean {
    return this.#closed;
  }

  async #runPump(): Promise<void> {
    try {
      for await (const event of this.agent.events) {
        if (!this.#begun) {
          if (this.#closed) break;
          this.#buffer.push(event);
          continue;
        }
        if (this.#flushing !== undefined) {
          await this.#flushing;
          this.#flushing = undefined;
        }
        if (this.#closed) break;
        const work = this.#events.handle(event);
        if (work !== undefined) await work;
      }
      await this.#afterStream(undefined);
    } catch (error) {
      await this.#afterStream(error);
    }
  }

  /** The stream ended: without an ended/fatal error first, that is a transport failure. */
  async #afterStream(error: unknown): Promise<void> {
    await this.#begin;
    if (this.#flushing !== undefined) await this.#flushing;
    if (this.#closed || this.#stopping || !isLiveState(this.#state)) return;
    const message =
      error === undefined
        ? 'the agent event stream ended without an ended event'
        : `the transport failed: ${error instanceof Error ? error.message : String(error)}`;
    await this.#events.handle({ type: 'error', message, fatal: true });
  }

  /** The next turn's diff starts from the tree as it is now (after an undo neo made between turns). */
  async rebaseDiff(): Promise<void> {
    await this.#capture.rebase();
  }

  /** The clock's time as ISO text; a burst of events within one millisecond formats it once. */
  #isoNow(): string {
    const now = this.#clock.now();
    if (now !== this.#atMs) {
      this.#atMs = now;
      this.#atIso = new Date(now).toISOString();
    }
    return this.#atIso;
  }

  #stopAgent(): void {
    this.agent
      .stop()
      .catch((error: unknown) => this.#log.warn('code_session_agent_stop_failed', { sessionId: this.id, error }));
  }

  #onSnapshot(snapshot: SessionSnapshot): void {
    const state = stateName(snapshot);
    if (state === this.#state) return;
    this.#state = state;
    if (!isLiveState(state)) {
      this.#idle.stop();
      this.#letGo();
    }
    if (state === 'stalled') {
      const idleMs = snapshot.context.idleTimeoutMs;
      this.emit({ type: 'stalled', idleMs });
      void this.durable().then(() => {
        if (this.#state === 'stalled')
          this.#queue.push({
            kind: 'error',
            message: `stalled: no agent event for ${Math.round(idleMs / 1000)}s`,
            stalled: true,
          });
      });
    }
    this.#hooks.stateChanged(this, state);
  }
}
