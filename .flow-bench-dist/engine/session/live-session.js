/**
 * One live code session: the transport's AgentSession, its lifecycle actor, the event pump and
 * the notification queue read-turn consumes. Every state change goes through `emit`, which
 * assigns the per-session seq, tells the registry's listeners and persists; a notification is
 * handed to a reader only after the events it reports are written (acknowledged = durable).
 */
import { createActor } from 'xstate';
import { isLiveState, sessionMachine, stateName } from './machine.js';
import { NotificationQueue } from './notifications.js';
import { RoundHistoryLog } from './round-history.js';
import { TurnLog } from './turn-log.js';
export const realClock = {
    now: () => Date.now(),
    setTimeout: (fn, ms) => setTimeout(fn, ms),
    clearTimeout: (id) => clearTimeout(id),
};
const NOT_WRITTEN = Promise.resolve(false);
export class LiveSession {
    id;
    ownerScope;
    backendId;
    descriptor;
    cwd;
    agent;
    startedAt;
    history = new RoundHistoryLog();
    #capture;
    #hooks;
    #log;
    #clock;
    #watch;
    #actor;
    #queue = new NotificationQueue();
    #turn = new TurnLog();
    #pending = new Map();
    #carryForward = [];
    #buffer = [];
    #seq = 1;
    #state = 'starting';
    #closed = false;
    #stopping = false;
    #begun = false;
    #flushing;
    #lastWrite = NOT_WRITTEN;
    #beginSignal;
    #begin = new Promise((resolve) => (this.#beginSignal = resolve));
    pump;
    constructor(init) {
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
        this.startedAt = init.clock.now();
        this.#watch = { lastAt: init.clock.now(), now: () => init.clock.now() };
        this.#actor = createActor(sessionMachine, {
            input: { posture: init.posture, maxPosture: init.maxPosture, maxRounds: init.maxRounds, roundsElapsed: init.roundsElapsed, idleTimeoutMs: init.idleTimeoutMs, watch: this.#watch },
            clock: init.clock,
        });
        // Pull events at once: anything the agent emits before registration is buffered in order.
        this.pump = this.#runPump();
    }
    get state() {
        return this.#state;
    }
    get snapshot() {
        return this.#actor.getSnapshot();
    }
    get nextSeq() {
        return this.#seq;
    }
    /** Registration done: seq starts at `nextSeq`, `first` is written, buffered events flush in order. */
    begin(nextSeq, first) {
        this.#seq = nextSeq;
        this.#actor.subscribe((snapshot) => this.#onSnapshot(snapshot));
        this.#actor.start();
        const written = this.emit(first);
        this.#begun = true;
        this.#flushing = (async () => {
            for (const event of this.#buffer.splice(0))
                await this.#handle(event);
        })();
        this.#beginSignal();
        return written;
    }
    /** Registration failed: stop buffering and let the pump end. */
    abandon() {
        this.#closed = true;
        this.#beginSignal();
    }
    /** Assigns the next seq, fans out and persists. A no-op once released. */
    emit(event) {
        if (this.#closed)
            return NOT_WRITTEN;
        const line = { seq: this.#seq++, at: new Date(this.#clock.now()).toISOString(), event };
        this.#lastWrite = this.#hooks.write(this, line);
        return this.#lastWrite;
    }
    /** Resolves once every event emitted so far is written. */
    durable() {
        return this.#lastWrite;
    }
    /** The next notification for read-turn; an aborted wait consumes nothing. */
    next(signal) {
        return this.#queue.next(signal);
    }
    pendingClarification(clarificationId) {
        return this.#pending.get(clarificationId);
    }
    /** Sends an op event to the machine (the machine decides whether it applies). */
    send(event) {
        // Waiting on the driver is not idleness: the agent's clock restarts when it gets control back.
        if (event.type === 'op.answer' || event.type === 'op.guide' || event.type === 'op.interrupt')
            this.#watch.lastAt = this.#clock.now();
        this.#actor.send(event);
    }
    /** Records an answer: the machine, the pinned history and the deny reason to carry forward. */
    recordAnswer(clarificationId, decision) {
        const pending = this.#pending.get(clarificationId);
        this.#pending.delete(clarificationId);
        this.#queue.answered(clarificationId);
        const round = this.snapshot.context.roundsElapsed + 1;
        const entry = { clarificationId, toolName: pending.toolName, allow: decision.allow, ...(decision.reason !== undefined ? { reason: decision.reason } : {}) };
        this.history.pinClarification(round, entry);
        if (!decision.allow && decision.reason !== undefined && decision.reason.trim() !== '') {
            this.#carryForward.push(`Your request to use ${pending.toolName} was denied: ${decision.reason.trim()}`);
        }
        const d = { allow: decision.allow };
        if (decision.reason !== undefined)
            d.reason = decision.reason;
        if (decision.note !== undefined)
            d.note = decision.note;
        this.emit({ type: 'clarification', clarificationId, toolName: pending.toolName, decision: d });
        this.send({ type: 'op.answer', clarificationId });
        return pending;
    }
    /** Guidance text with any deny reasons carried forward, emitted as guidance events. */
    composeGuidance(text, source, switchTo) {
        const carried = this.#carryForward.splice(0);
        for (const reason of carried)
            this.emit({ type: 'guidance', source: 'deny', text: reason });
        const event = { type: 'guidance', source, text };
        if (switchTo?.model !== undefined)
            event.model = switchTo.model;
        if (switchTo?.effort !== undefined)
            event.effort = switchTo.effort;
        this.emit(event);
        if (source === 'user')
            this.history.pinUserGuidance(this.snapshot.context.roundsElapsed + 1, text);
        return carried.length === 0 ? text : `${carried.join('\n')}\n\n${text}`;
    }
    /** Drops pending clarifications (an interrupt aborts the turn that raised them). */
    dropPending() {
        this.#pending.clear();
        this.#queue.dropClarifications();
    }
    /** The registry is stopping the agent: the stream's end is expected, not a failure. */
    markStopping() {
        this.#stopping = true;
    }
    /**
     * Ends the session's life: machine to released, `released` written as the last event, every
     * waiting reader answered. The transport is stopped by the registry before this.
     */
    close(last) {
        this.#actor.send({ type: 'op.release', reason: last.type === 'released' ? last.reason : 'explicit' });
        const written = this.emit(last);
        this.#closed = true;
        this.#actor.stop();
        this.#queue.close({ kind: 'ended', ok: false, text: 'the session was released' });
        this.#beginSignal();
        return written;
    }
    get closed() {
        return this.#closed;
    }
    async #runPump() {
        try {
            for await (const event of this.agent.events) {
                if (!this.#begun) {
                    if (this.#closed)
                        break;
                    this.#buffer.push(event);
                    continue;
                }
                if (this.#flushing !== undefined) {
                    await this.#flushing;
                    this.#flushing = undefined;
                }
                if (this.#closed)
                    break;
                const work = this.#handle(event);
                if (work !== undefined)
                    await work;
            }
            await this.#afterStream(undefined);
        }
        catch (error) {
            await this.#afterStream(error);
        }
    }
    /** The stream ended: without an ended/fatal error first, that is a transport failure. */
    async #afterStream(error) {
        await this.#begin;
        if (this.#flushing !== undefined)
            await this.#flushing;
        if (this.#closed || this.#stopping || !isLiveState(this.#state))
            return;
        const message = error === undefined ? 'the agent event stream ended without an ended event' : `the transport failed: ${error instanceof Error ? error.message : String(error)}`;
        await this.#handle({ type: 'error', message, fatal: true });
    }
    #handle(event) {
        this.#watch.lastAt = this.#clock.now();
        const written = this.emit(event);
        switch (event.type) {
            case 'started':
                this.#hooks.started(this, { ...(event.externalSessionId !== undefined ? { externalSessionId: event.externalSessionId } : {}), ...(event.model !== undefined ? { model: event.model } : {}) });
                break;
            case 'text':
                this.#turn.addText(event.text);
                break;
            case 'tool_use':
                this.#turn.addToolUse(event.id, event.name, event.input);
                this.#capture.noteToolUse(event.name, event.input);
                break;
            case 'tool_result':
                this.#turn.addToolResult(event.id, event.isError);
                break;
            case 'clarify':
                return this.#onClarify(event, written);
            case 'turn_complete':
                return this.#onTurnEnd(event.text, { numTurns: event.numTurns, costUsd: event.costUsd }, undefined);
            case 'ended':
                return this.#onEnded(event.ok, event.text, event.costUsd);
            case 'error':
                if (event.transient === true && event.fatal !== true)
                    break;
                if (event.fatal === true)
                    return this.#onFatal(event.message, event.transient);
                return this.#onTurnEnd(undefined, {}, event.message);
            default:
                break;
        }
        if (this.#state !== 'running')
            this.#actor.send({ type: 'agent.activity' });
        return undefined;
    }
    async #onClarify(event, written) {
        this.#pending.set(event.clarificationId, { toolName: event.toolName });
        this.#actor.send({ type: 'agent.clarify', clarificationId: event.clarificationId });
        await written;
        this.#queue.push({ kind: 'clarification', clarificationId: event.clarificationId, toolName: event.toolName, input: event.input });
    }
    /** A turn ended: cleanly (turn_complete) or failed (a non-fatal error). */
    async #onTurnEnd(finalText, figures, failure) {
        const text = this.#turn.text(finalText);
        const actions = this.#turn.actions();
        this.#turn.reset();
        this.dropPending();
        const round = this.snapshot.context.roundsElapsed + 1;
        const turnDiff = await this.#settleDiff(round);
        this.history.addRound(round, failure === undefined ? text : `(turn failed: ${failure}) ${text}`, actions);
        this.#actor.send(figures.costUsd === undefined ? { type: 'agent.turn_complete' } : { type: 'agent.turn_complete', costUsd: figures.costUsd });
        const capped = this.#state === 'maxRounds';
        const maxRounds = capped ? { kind: 'max_rounds', ok: true, text, rounds: round, ...diffField(turnDiff) } : undefined;
        if (capped)
            this.emit({ type: 'max_rounds', rounds: round });
        await this.durable();
        if (failure !== undefined)
            this.#queue.push({ kind: 'error', message: failure, ...diffField(turnDiff) });
        else if (maxRounds === undefined) {
            const n = { kind: 'turn_complete', text, actions, ...diffField(turnDiff) };
            if (figures.numTurns !== undefined)
                n.numTurns = figures.numTurns;
            if (figures.costUsd !== undefined)
                n.costUsd = figures.costUsd;
            this.#queue.push(n);
        }
        if (maxRounds !== undefined) {
            if (failure === undefined)
                this.#queue.push(maxRounds);
            this.#queue.setSticky(maxRounds);
            // The round cap is a clean stop: the agent is done, the record stays until released.
            this.#stopAgent();
        }
    }
    async #onEnded(ok, text, costUsd) {
        const turnDiff = await this.#settleDiff(this.snapshot.context.roundsElapsed + 1);
        this.dropPending();
        this.#actor.send(costUsd === undefined ? { type: 'agent.ended', ok } : { type: 'agent.ended', ok, costUsd });
        await this.durable();
        const n = { kind: 'ended', ok, text: text !== '' ? text : this.#turn.text(), ...diffField(turnDiff) };
        this.#queue.push(n);
        this.#queue.setSticky(n);
        this.#stopAgent();
    }
    async #onFatal(message, transient) {
        const turnDiff = await this.#settleDiff(this.snapshot.context.roundsElapsed + 1);
        this.dropPending();
        this.#actor.send({ type: 'agent.error', message });
        await this.durable();
        const n = { kind: 'error', message, ...(transient === true ? { transient } : {}), ...diffField(turnDiff) };
        this.#queue.push(n);
        this.#queue.setSticky(n);
        this.#stopAgent();
    }
    async #settleDiff(round) {
        const diff = await this.#capture.settle();
        this.emit({ type: 'turn_diff', round, diff });
        return diff;
    }
    #stopAgent() {
        this.agent.stop().catch((error) => this.#log.warn('code_session_agent_stop_failed', { sessionId: this.id, error }));
    }
    #onSnapshot(snapshot) {
        const state = stateName(snapshot);
        if (state === this.#state)
            return;
        this.#state = state;
        if (state === 'stalled') {
            const idleMs = snapshot.context.idleTimeoutMs;
            this.emit({ type: 'stalled', idleMs });
            void this.durable().then(() => {
                if (this.#state === 'stalled')
                    this.#queue.push({ kind: 'error', message: `stalled: no agent event for ${Math.round(idleMs / 1000)}s`, stalled: true });
            });
        }
        this.#hooks.stateChanged(this, state);
    }
}
function diffField(diff) {
    return { turnDiff: diff };
}
