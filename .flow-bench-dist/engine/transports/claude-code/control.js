import { NeoError } from '../../util/errors.js';
import { formatSeconds } from '../shared/index.js';
/**
 * The host side of Claude Code's control protocol: `control_request` lines we send, matched
 * to their `control_response` by request_id. A request the CLI never answers rejects after
 * `timeoutMs` instead of hanging the caller.
 */
export class ControlChannel {
    #send;
    #timeoutMs;
    #pending = new Map();
    #next = 1;
    constructor(send, timeoutMs) {
        this.#send = send;
        this.#timeoutMs = timeoutMs;
    }
    /** Sends `{subtype, ...fields}` and resolves with the response's `response` object. */
    request(subtype, fields = {}) {
        const requestId = `neo_${this.#next++}`;
        return new Promise((resolve, reject) => {
            const timer = setTimeout(() => {
                this.#pending.delete(requestId);
                reject(new NeoError('TRANSPORT_CONTROL_TIMEOUT', `claude did not answer the ${subtype} control request within ${formatSeconds(this.#timeoutMs)}`));
            }, this.#timeoutMs);
            timer.unref();
            this.#pending.set(requestId, { resolve, reject, timer, subtype });
            const sent = this.#send(JSON.stringify({ type: 'control_request', request_id: requestId, request: { subtype, ...fields } }));
            if (!sent)
                this.#settle(requestId, new NeoError('TRANSPORT_SESSION_CLOSED', `cannot send ${subtype}: claude's stdin is closed`));
        });
    }
    /** Handles a `control_response` line; false when it answers nothing we sent. */
    receive(response) {
        const requestId = response.request_id;
        if (typeof requestId !== 'string' || !this.#pending.has(requestId))
            return false;
        if (response.subtype === 'error') {
            const message = typeof response.error === 'string' ? response.error : 'control request failed';
            const subtype = this.#pending.get(requestId)?.subtype ?? 'control';
            this.#settle(requestId, new NeoError('TRANSPORT_CONTROL_FAILED', `claude refused ${subtype}: ${message}`));
        }
        else {
            const body = response.response;
            this.#settle(requestId, undefined, typeof body === 'object' && body !== null ? body : {});
        }
        return true;
    }
    /** Answers a request the CLI sent us (can_use_tool, hook callbacks …). */
    respond(requestId, body) {
        this.#send(JSON.stringify({ type: 'control_response', response: { subtype: 'success', request_id: requestId, response: body } }));
    }
    /** Refuses a request the CLI sent us, so it never waits on neo for something neo does not do. */
    refuse(requestId, error) {
        this.#send(JSON.stringify({ type: 'control_response', response: { subtype: 'error', request_id: requestId, error } }));
    }
    /** Rejects every pending request (the CLI went away). */
    closeAll(error) {
        for (const id of [...this.#pending.keys()])
            this.#settle(id, error);
    }
    #settle(requestId, error, value = {}) {
        const pending = this.#pending.get(requestId);
        if (pending === undefined)
            return;
        this.#pending.delete(requestId);
        clearTimeout(pending.timer);
        if (error !== undefined)
            pending.reject(error);
        else
            pending.resolve(value);
    }
}
