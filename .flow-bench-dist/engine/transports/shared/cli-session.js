import { NeoError } from '../../util/errors.js';
import { EventChannel } from './event-channel.js';
import { IdleWatchdog } from './idle-watchdog.js';
import { formatSeconds } from './tuning.js';
/**
 * The lifecycle every CLI adapter shares: JSON lines in, normalized events out, one turn at a
 * time, pending clarifications, the idle watchdog, exit detection and an idempotent stop that
 * takes the whole process group down. Adapters implement the protocol in handleMessage().
 *
 * Error levels: a `transient` error is a notice (the turn goes on), a plain error ends the turn,
 * a `fatal` error ends the session and the stream.
 */
export class CliSession {
    events;
    backendId;
    proc;
    tuning;
    posture;
    #clarifications = new Map();
    #watchdog;
    #turnActive = false;
    #finished = false;
    #stopping;
    #lastText = '';
    #turnText = '';
    constructor(init) {
        this.events = new EventChannel();
        this.backendId = init.backendId;
        this.proc = init.proc;
        this.tuning = init.tuning;
        this.posture = init.posture;
        this.#watchdog = new IdleWatchdog(init.tuning.idleTimeoutMs, () => this.#onIdle());
        init.proc.onLine((line) => this.#onLine(line));
        void init.proc.exited.then((exit) => this.#onExit(exit));
    }
    /** Called once when the session is going away (before the process is terminated). */
    onClosing() { }
    /** Emits anything the adapter buffered (streamed chunks) before a turn-level event. */
    flushPending() { }
    get turnActive() {
        return this.#turnActive;
    }
    get finished() {
        return this.#finished || this.#stopping !== undefined;
    }
    async answer(clarificationId, decision) {
        const respond = this.#clarifications.get(clarificationId);
        if (respond === undefined) {
            throw new NeoError('TRANSPORT_UNKNOWN_CLARIFICATION', `${this.backendId} has no pending clarification ${clarificationId}`, {
                hint: 'it was already answered, withdrawn by the agent, or belongs to another session',
            });
        }
        this.#clarifications.delete(clarificationId);
        respond(decision);
        this.#rearm();
    }
    /** Ends the session: closes the stream (no `ended` event), then takes the process group down. */
    stop() {
        this.#stopping ??= this.#shutdown();
        return this.#stopping;
    }
    emit(event) {
        if (this.#finished)
            return;
        if (event.type === 'text') {
            this.#lastText = event.text;
            this.#turnText = event.text;
        }
        this.events.push(event);
    }
    /** Marks a turn as running (the watchdog starts counting). */
    beginTurn() {
        this.#turnActive = true;
        this.#turnText = '';
        this.#rearm();
    }
    /** Ends the turn; its text defaults to the turn's last `text` event. */
    completeTurn(event) {
        this.flushPending();
        if (event.text === undefined && this.#turnText !== '')
            event = { ...event, text: this.#turnText };
        if (event.text !== undefined && event.text !== '')
            this.#lastText = event.text;
        this.#turnActive = false;
        // An ask still open when the turn ends was abandoned by the agent.
        this.#clarifications.clear();
        this.#rearm();
        this.emit({ type: 'turn_complete', ...event });
    }
    /** The turn failed; the session can take another turn. */
    failTurn(code, message, withStderr = false) {
        this.flushPending();
        this.#turnActive = false;
        this.#clarifications.clear();
        this.#rearm();
        this.emit(this.#error(code, message, withStderr));
    }
    /** A notice: the turn goes on. */
    notice(code, message) {
        this.flushPending();
        this.emit({ type: 'error', code, message, transient: true });
    }
    /** The session is over: reports, then tears the process group down and ends the stream. */
    fatal(code, message, withStderr = true) {
        if (this.#finished)
            return;
        this.flushPending();
        this.emit({ ...this.#error(code, message, withStderr), fatal: true });
        this.#finish();
        void this.proc.terminate(this.tuning.killGraceMs);
    }
    /** Emits a clarify event; `respond` is called once with the driver's decision. */
    raiseClarification(clarificationId, toolName, input, respond) {
        this.flushPending();
        this.#clarifications.set(clarificationId, respond);
        this.#rearm();
        this.emit({ type: 'clarify', clarificationId, toolName, input });
    }
    /** The agent withdrew an ask (e.g. after an interrupt). */
    withdrawClarification(clarificationId) {
        const had = this.#clarifications.delete(clarificationId);
        this.#rearm();
        return had;
    }
    pendingClarifications() {
        return [...this.#clarifications.keys()];
    }
    /** Throws when the session can no longer take commands. */
    assertOpen(operation) {
        if (this.finished)
            throw new NeoError('TRANSPORT_SESSION_CLOSED', `${this.backendId}: cannot ${operation}, the session has ended`);
    }
    #error(code, message, withStderr) {
        const tail = withStderr ? this.proc.stderrTail() : '';
        return tail === '' ? { type: 'error', code, message } : { type: 'error', code, message, stderrTail: tail };
    }
    #rearm() {
        this.#watchdog.armed = this.#turnActive && this.#clarifications.size === 0 && !this.finished;
    }
    #onLine(line) {
        if (this.#finished)
            return;
        this.#watchdog.touch();
        const trimmed = line.trim();
        if (trimmed === '')
            return;
        let message;
        try {
            message = JSON.parse(trimmed);
        }
        catch {
            this.notice('TRANSPORT_MALFORMED_LINE', `${this.backendId} printed a line that is not JSON; skipped it: ${clip(trimmed)}`);
            return;
        }
        if (typeof message !== 'object' || message === null || Array.isArray(message)) {
            this.notice('TRANSPORT_MALFORMED_LINE', `${this.backendId} printed JSON that is not an object; skipped it: ${clip(trimmed)}`);
            return;
        }
        this.handleMessage(message);
    }
    #onIdle() {
        this.fatal('TRANSPORT_IDLE_TIMEOUT', `${this.backendId} sent nothing for ${formatSeconds(this.tuning.idleTimeoutMs)} during a turn; stopped it`);
    }
    #onExit(exit) {
        if (this.#finished || this.#stopping !== undefined)
            return;
        if (!this.#turnActive && exit.exitCode === 0) {
            // The agent closed the session itself, cleanly, between turns.
            this.events.push({ type: 'ended', ok: true, text: this.#lastText });
            this.#finish();
            void this.proc.terminate(this.tuning.killGraceMs);
            return;
        }
        const how = exit.spawnError ?? (exit.signal !== undefined ? `killed by ${exit.signal}` : `exit code ${exit.exitCode ?? '?'}`);
        const when = this.#turnActive ? 'mid-turn' : 'between turns';
        this.fatal('TRANSPORT_EXITED', `${this.backendId} exited ${when} (${how})`);
    }
    #finish() {
        this.#finished = true;
        this.#watchdog.dispose();
        this.#clarifications.clear();
        this.onClosing();
        this.events.close();
    }
    /** stop(): the driver ends the session, so no `ended` event — the stream just closes. */
    async #shutdown() {
        const wasFinished = this.#finished;
        this.#watchdog.dispose();
        if (!wasFinished)
            this.#finish();
        await this.proc.terminate(this.tuning.killGraceMs);
    }
}
function clip(text) {
    return text.length > 120 ? `${text.slice(0, 120)}…` : text;
}
