import { NeoError } from '../../util/errors.js';
import { formatSeconds } from '../shared/index.js';

type Pending = {
  resolve: (value: Record<string, unknown>) => void;
  reject: (error: Error) => void;
  timer: NodeJS.Timeout;
  subtype: string;
};

/**
 * The host side of Claude Code's control protocol: `control_request` lines we send, matched
 * to their `control_response` by request_id. A request the CLI never answers rejects after
 * `timeoutMs` instead of hanging the caller.
 */
export class ControlChannel {
  readonly #send: (line: string) => boolean;
  readonly #timeoutMs: number;
  readonly #pending = new Map<string, Pending>();
  #next = 1;

  constructor(send: (line: string) => boolean, timeoutMs: number) {
    this.#send = send;
    this.#timeoutMs = timeoutMs;
  }

  /** Sends `{subtype, ...fields}` and resolves with the response's `response` object. */
  request(subtype: string, fields: Record<string, unknown> = {}): Promise<Record<string, unknown>> {
    const requestId = `neo_${this.#next++}`;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.#pending.delete(requestId);
        reject(
          new NeoError(
            'TRANSPORT_CONTROL_TIMEOUT',
            `claude did not answer the ${subtype} control request within ${formatSeconds(this.#timeoutMs)}`,
          ),
        );
      }, this.#timeoutMs);
      timer.unref();
      this.#pending.set(requestId, { resolve, reject, timer, subtype });
      const sent = this.#send(
        JSON.stringify({ type: 'control_request', request_id: requestId, request: { subtype, ...fields } }),
      );
      if (!sent)
        this.#settle(
          requestId,
          new NeoError('TRANSPORT_SESSION_CLOSED', `cannot send ${subtype}: claude's stdin is closed`),
        );
    });
  }

  /** Handles a `control_response` line; false when it answers nothing we sent. */
  receive(response: Record<string, unknown>): boolean {
    const requestId = response.request_id;
    if (typeof requestId !== 'string' || !this.#pending.has(requestId)) return false;
    if (response.subtype === 'error') {
      const message = typeof response.error === 'string' ? response.error : 'control request failed';
      const subtype = this.#pending.get(requestId)?.subtype ?? 'control';
      this.#settle(requestId, new NeoError('TRANSPORT_CONTROL_FAILED', `claude refused ${subtype}: ${message}`));
    } else {
      const body = response.response;
      this.#settle(
        requestId,
        undefined,
        typeof body === 'object' && body !== null ? (body as Record<string, unknown>) : {},
      );
    }
    return true;
  }

  /** Answers a request the CLI sent us (can_use_tool, hook callbacks …). */
  respond(requestId: string, body: Record<string, unknown>): void {
    this.#send(
      JSON.stringify({
        type: 'control_response',
        response: { subtype: 'success', request_id: requestId, response: body },
      }),
    );
  }

  /** Refuses a request the CLI sent us, so it never waits on neo for something neo does not do. */
  refuse(requestId: string, error: string): void {
    this.#send(
      JSON.stringify({ type: 'control_response', response: { subtype: 'error', request_id: requestId, error } }),
    );
  }

  /** Rejects every pending request (the CLI went away). */
  closeAll(error: Error): void {
    for (const id of [...this.#pending.keys()]) this.#settle(id, error);
  }

  #settle(requestId: string, error: Error | undefined, value: Record<string, unknown> = {}): void {
    const pending = this.#pending.get(requestId);
    if (pending === undefined) return;
    this.#pending.delete(requestId);
    clearTimeout(pending.timer);
    if (error !== undefined) pending.reject(error);
    else pending.resolve(value);
  }
}
