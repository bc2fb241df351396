/**
 * The agent's side of a live session: what each event its transport streams does. Text and tool
 * calls build the turn; a clarification waits for the driver; a turn's end (clean, failed, the
 * agent's end or a fatal error) settles the turn's diff, adds the round to the history and hands
 * read-turn its notification only once the events it reports are written.
 */
import type { Actor } from 'xstate';
import type { AgentEvent } from '../transports/index.js';
import type { TurnDiff } from './contract.js';
import type { TurnDiffCapture } from './diff/capture.js';
import type { SessionEventPayload } from './events.js';
import type { SessionLog } from './log.js';
import type { ActivityWatch, sessionMachine, SessionSnapshot, SessionStateName } from './machine.js';
import type { Notification, NotificationQueue } from './notifications.js';
import type { RoundHistoryLog } from './round-history.js';
import { TurnLog } from './turn-log.js';
import { gateRecord, type Clarifications } from './clarifications.js';
import type { SessionClock } from './clock.js';
import { redactDeep, type Redact } from '../util/redact.js';
import { defined } from '../util/defined.js';

type SessionActor = Actor<typeof sessionMachine>;

/** What the agent's side reads and calls of its session (LiveSession's public face). */
export interface SessionSide {
  readonly id: string;
  readonly state: SessionStateName;
  readonly snapshot: SessionSnapshot;
  readonly history: RoundHistoryLog;
  emit(event: SessionEventPayload): Promise<boolean>;
  durable(): Promise<boolean>;
  send(event: Parameters<SessionActor['send']>[0]): void;
}

/** The session's parts the agent's side shares with it. */
export interface AgentEventsInit {
  session: SessionSide;
  actor: SessionActor;
  queue: NotificationQueue;
  clarifications: Clarifications;
  capture: TurnDiffCapture;
  watch: ActivityWatch;
  clock: SessionClock;
  redact: Redact;
  log: SessionLog;
  /** The transport reported its own session id or model. */
  started(info: { externalSessionId?: string; model?: string }): void;
  /** The transport said what it did with the capability plan. */
  provisioned(report: Extract<AgentEvent, { type: 'provision' }>): void;
  /** Stops the agent without waiting (its turns are over); a failure is logged. */
  stopAgent(): void;
}

export class AgentEvents {
  readonly #session: SessionSide;
  readonly #actor: SessionActor;
  readonly #queue: NotificationQueue;
  readonly #clarifications: Clarifications;
  readonly #capture: TurnDiffCapture;
  readonly #watch: ActivityWatch;
  readonly #clock: SessionClock;
  readonly #redact: Redact;
  readonly #log: SessionLog;
  /** What the session itself does when the transport reports in, and how it stops the agent. */
  readonly #owner: Pick<AgentEventsInit, 'started' | 'provisioned' | 'stopAgent'>;
  readonly #turn = new TurnLog();

  constructor(init: AgentEventsInit) {
    this.#session = init.session;
    this.#actor = init.actor;
    this.#queue = init.queue;
    this.#clarifications = init.clarifications;
    this.#capture = init.capture;
    this.#watch = init.watch;
    this.#clock = init.clock;
    this.#redact = init.redact;
    this.#log = init.log;
    this.#owner = init;
  }

  /** One event, in stream order; the promise (when there is one) settles what the event started. */
  handle(raw: AgentEvent): Promise<void> | undefined {
    this.#watch.lastAt = this.#clock.now();
    // Before anything reads it (the turn's text, a notification, a ask): what is kept is what is told.
    const event = redactDeep(raw, this.#redact);
    const written = this.#session.emit(event.type === 'gate_decision' ? gateRecord(event) : event);
    switch (event.type) {
      case 'started':
        this.#owner.started(defined({ externalSessionId: event.externalSessionId, model: event.model }));
        break;
      case 'provision':
        this.#owner.provisioned(event);
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
    if (this.#session.state !== 'running') this.#actor.send({ type: 'agent.activity' });
    return undefined;
  }

  async #onClarify(event: Extract<AgentEvent, { type: 'clarify' }>, written: Promise<boolean>): Promise<void> {
    this.#clarifications.raise(event.clarificationId, {
      toolName: event.toolName,
      ...defined({ ask: event.ask }),
    });
    this.#actor.send({ type: 'agent.clarify', clarificationId: event.clarificationId });
    this.#log.info('code_session_clarification_raised', {
      sessionId: this.#session.id,
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
    if (this.#clarifications.settle(clarificationId) === undefined) return;
    this.#session.send({ type: 'op.answer', clarificationId });
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
    this.#clarifications.drop();
    const round = this.#session.snapshot.context.roundsElapsed + 1;
    const turnDiff = await this.#settleDiff(round);
    this.#session.history.addRound(
      round,
      failure === undefined ? text : `(turn failed: ${failure.message}) ${text}`,
      actions,
    );
    this.#actor.send(
      figures.costUsd === undefined
        ? { type: 'agent.turn_complete' }
        : { type: 'agent.turn_complete', costUsd: figures.costUsd },
    );
    const capped = this.#session.state === 'maxRounds';
    const maxRounds: Notification | undefined = capped
      ? { kind: 'max_rounds', ok: true, text, rounds: round, ...diffField(turnDiff) }
      : undefined;
    if (capped) this.#session.emit({ type: 'max_rounds', rounds: round });
    await this.#session.durable();
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
      this.#owner.stopAgent();
    }
  }

  async #onEnded(ok: boolean, text: string, costUsd: number | undefined): Promise<void> {
    const turnDiff = await this.#settleDiff(this.#session.snapshot.context.roundsElapsed + 1);
    this.#clarifications.drop();
    this.#actor.send(costUsd === undefined ? { type: 'agent.ended', ok } : { type: 'agent.ended', ok, costUsd });
    await this.#session.durable();
    const n: Notification = { kind: 'ended', ok, text: text !== '' ? text : this.#turn.text(), ...diffField(turnDiff) };
    this.#queue.push(n);
    this.#queue.setSticky(n);
    this.#owner.stopAgent();
  }

  async #onFatal(message: string, transient: boolean | undefined, code?: string): Promise<void> {
    const turnDiff = await this.#settleDiff(this.#session.snapshot.context.roundsElapsed + 1);
    this.#clarifications.drop();
    this.#actor.send({ type: 'agent.error', message });
    await this.#session.durable();
    const n: Notification = {
      kind: 'error',
      message,
      ...defined({ code }),
      ...(transient === true ? { transient } : {}),
      ...diffField(turnDiff),
    };
    this.#queue.push(n);
    this.#queue.setSticky(n);
    this.#owner.stopAgent();
  }

  async #settleDiff(round: number): Promise<TurnDiff> {
    // A secret the agent wrote into a file is redacted in the patch a reader is given as well.
    const diff = redactDeep(await this.#capture.settle(), this.#redact);
    this.#session.emit({ type: 'turn_diff', round, diff });
    return diff;
  }
}

function diffField(diff: TurnDiff): { turnDiff?: TurnDiff } {
  return { turnDiff: diff };
}
