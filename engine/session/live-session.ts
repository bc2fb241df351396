/**
 * One live code session: the transport's AgentSession, its lifecycle actor, the event pump and
 * the notification queue read-turn consumes. Every state change goes through `emit`, which
 * assigns the per-session seq, tells the registry's listeners and persists; a notification is
 * handed to a reader only after the events it reports are written (acknowledged = durable).
 */
import { createActor, type Actor } from 'xstate';
import type { Backend, Effort, Posture } from '../definitions/index.js';
import { keepAlive } from '../execution/index.js';
import type { ToolAsk } from '../posture/index.js';
import type { AgentEvent, AgentSession } from '../transports/index.js';
import type { TurnDiff } from './contract.js';
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
import { TurnLog } from './turn-log.js';
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
  readonly #turn = new TurnLog();
  readonly #pending = new Map<string, { toolName: string; ask?: ToolAsk }>();
  readonly #carryForward: string[] = [];
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
      for (const event of this.#buffer.splice(0)) await this.#handle(event);
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
    return this.#pending.get(clarificationId);
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
    const pending = this.#pending.get(clarificationId)!;
    this.#pending.delete(clarificationId);
    this.#queue.answered(clarificationId);
    const round = this.snapshot.context.roundsElapsed + 1;
    const entry = {
      clarificationId,
      toolName: pending.toolName,
      allow: decision.allow,
      ...defined({ reason: decision.reason }),
    };
    this.history.pinClarification(round, entry);
    if (!decision.allow && decision.reason !== undefined && decision.reason.trim() !== '') {
      this.#carryForward.push(`Your request to use ${pending.toolName} was denied: ${decision.reason.trim()}`);
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
    const carried = this.#carryForward.splice(0);
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
    this.#pending.clear();
    this.#queue.dropClarifications();
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
        const work = this.#handle(event);
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
    await this.#handle({ type: 'error', message, fatal: true });
  }

  #handle(raw: AgentEvent): Promise<void> | undefined {
    this.#watch.lastAt = this.#clock.now();
    // Before anything reads it (the turn's text, a notification, a ask): what is kept is what is told.
    const event = redactDeep(raw, this.#redact);
    const written = this.emit(event.type === 'gate_decision' ? gateRecord(event) : event);
    switch (event.type) {
      case 'started':
        this.#hooks.started(this, defined({ externalSessionId: event.externalSessionId, model: event.model }));
        break;
      case 'provision':
        this.provisionReport = event;
        this.#hooks.provisioned(this);
        break;
      case 'text':
        this.#turn.addText(event.text);
        break;
      case 'tool_use':
        this.#turn.addToolUse(event.id, event.name, event.input);
        this.#capture.noteToolUse(event);
        break;
      case 'tool_result':
        this.#turn.addToolResult(event.id, event.isError);
        break;
      case 'clarify':
        return this.#onClarify(event, written);
      case 'gate_decision':
        this.#settledWithoutDriver(event.clarificationId);
        break;
      case 'turn_complete':
        return this.#onTurnEnd(event.text, { numTurns: event.numTurns, costUsd: event.costUsd }, undefined);
      case 'ended':
        return this.#onEnded(event.ok, event.text, event.costUsd);
      case 'error':
        if (event.transient === true && event.fatal !== true) break;
        if (event.fatal === true) return this.#onFatal(event.message, event.transient, event.code);
        return this.#onTurnEnd(undefined, {}, { message: event.message, code: event.code });
      default:
        break;
    }
    if (this.#state !== 'running') this.#actor.send({ type: 'agent.activity' });
    return undefined;
  }

  async #onClarify(event: Extract<AgentEvent, { type: 'clarify' }>, written: Promise<boolean>): Promise<void> {
    this.#pending.set(event.clarificationId, {
      toolName: event.toolName,
      ...defined({ ask: event.ask }),
    });
    this.#actor.send({ type: 'agent.clarify', clarificationId: event.clarificationId });
    this.#log.info('code_session_clarification_raised', {
      sessionId: this.id,
      clarificationId: event.clarificationId,
      toolName: event.toolName,
    });
    await written;
    this.#queue.push({
      kind: 'clarification',
      clarificationId: event.clarificationId,
      toolName: event.toolName,
      input: event.input,
      ...defined({ ask: event.ask }),
    });
  }

  /** An ask the driver was asked about closed without it (the CLI withdrew it): it no longer waits for an answer. */
  #settledWithoutDriver(clarificationId: string): void {
    if (!this.#pending.delete(clarificationId)) return;
    this.#queue.answered(clarificationId);
    this.send({ type: 'op.answer', clarificationId });
  }

  /** A turn ended: cleanly (turn_complete) or failed (a non-fatal error). */
  async #onTurnEnd(
    finalText: string | undefined,
    figures: { numTurns?: number | undefined; costUsd?: number | undefined },
    failure: { message: string; code: string | undefined } | undefined,
  ): Promise<void> {
    const text = this.#turn.text(finalText);
    const actions = this.#turn.actions();
    this.#turn.reset();
    this.dropPending();
    const round = this.snapshot.context.roundsElapsed + 1;
    const turnDiff = await this.#settleDiff(round);
    this.history.addRound(round, failure === undefined ? text : `(turn failed: ${failure.message}) ${text}`, actions);
    this.#actor.send(
      figures.costUsd === undefined
        ? { type: 'agent.turn_complete' }
        : { type: 'agent.turn_complete', costUsd: figures.costUsd },
    );
    const capped = this.#state === 'maxRounds';
    const maxRounds: Notification | undefined = capped
      ? { kind: 'max_rounds', ok: true, text, rounds: round, ...diffField(turnDiff) }
      : undefined;
    if (capped) this.emit({ type: 'max_rounds', rounds: round });
    await this.durable();
    if (failure !== undefined)
      this.#queue.push({
        kind: 'error',
        message: failure.message,
        ...defined({ code: failure.code }),
        ...diffField(turnDiff),
      });
    else if (maxRounds === undefined) {
      const n: Notification = { kind: 'turn_complete', text, actions, ...diffField(turnDiff) };
      if (figures.numTurns !== undefined) n.numTurns = figures.numTurns;
      if (figures.costUsd !== undefined) n.costUsd = figures.costUsd;
      this.#queue.push(n);
    }
    if (maxRounds !== undefined) {
      if (failure === undefined) this.#queue.push(maxRounds);
      this.#queue.setSticky(maxRounds);
      // The round cap is a clean stop: the agent is done, the record stays until released.
      this.#stopAgent();
    }
  }

  async #onEnded(ok: boolean, text: string, costUsd: number | undefined): Promise<void> {
    const turnDiff = await this.#settleDiff(this.snapshot.context.roundsElapsed + 1);
    this.dropPending();
    this.#actor.send(costUsd === undefined ? { type: 'agent.ended', ok } : { type: 'agent.ended', ok, costUsd });
    await this.durable();
    const n: Notification = { kind: 'ended', ok, text: text !== '' ? text : this.#turn.text(), ...diffField(turnDiff) };
    this.#queue.push(n);
    this.#queue.setSticky(n);
    this.#stopAgent();
  }

  async #onFatal(message: string, transient: boolean | undefined, code?: string): Promise<void> {
    const turnDiff = await this.#settleDiff(this.snapshot.context.roundsElapsed + 1);
    this.dropPending();
    this.#actor.send({ type: 'agent.error', message });
    await this.durable();
    const n: Notification = {
      kind: 'error',
      message,
      ...defined({ code }),
      ...(transient === true ? { transient } : {}),
      ...diffField(turnDiff),
    };
    this.#queue.push(n);
    this.#queue.setSticky(n);
    this.#stopAgent();
  }

  /** The next turn's diff starts from the tree as it is now (after an undo neo made between turns). */
  async rebaseDiff(): Promise<void> {
    await this.#capture.rebase();
  }

  async #settleDiff(round: number): Promise<TurnDiff> {
    // A secret the agent wrote into a file is redacted in the patch a reader is given as well.
    const diff = redactDeep(await this.#capture.settle(), this.#redact);
    this.emit({ type: 'turn_diff', round, diff });
    return diff;
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

function diffField(diff: TurnDiff): { turnDiff?: TurnDiff } {
  return { turnDiff: diff };
}

/**
 * neo's own answer, recorded as the clarification it settled: answered by `posture` (with the
 * posture it decided under), or closed unanswered by an `interrupt` or the `cli`.
 */
function gateRecord(event: Extract<AgentEvent, { type: 'gate_decision' }>): SessionAnnotation {
  return {
    type: 'clarification',
    clarificationId: event.clarificationId,
    toolName: event.toolName,
    decision: { allow: event.allow, reason: event.reason },
    by: event.by ?? 'posture',
    ...(event.by === undefined ? { posture: event.posture } : {}),
    ask: event.ask,
  };
}
