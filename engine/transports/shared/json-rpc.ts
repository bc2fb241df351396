/**
 * A minimal JSON-RPC 2.0 peer over newline-delimited JSON, used by both the Codex app-server
 * adapter (which omits the `"jsonrpc"` field) and the ACP client (which requires it). The
 * caller parses lines and feeds objects in; this class only does the bookkeeping.
 */

/** A JSON-RPC error object, thrown by request() and by request handlers. */
import { defined } from '../../util/defined.js';

export class JsonRpcError extends Error {
  readonly code: number;
  readonly data: unknown;

  constructor(code: number, message: string, data?: unknown) {
    super(message);
    this.name = 'JsonRpcError';
    this.code = code;
    this.data = data;
  }
}

/** Standard codes. */
export const RPC_METHOD_NOT_FOUND = -32601;
export const RPC_INVALID_PARAMS = -32602;
export const RPC_INTERNAL_ERROR = -32603;

export interface JsonRpcPeerOptions {
  /** Writes one serialized message; returns false when the channel is closed. */
  send(line: string): boolean;
  /** Add `"jsonrpc":"2.0"` to every message. */
  includeVersion: boolean;
  /** Handles a request from the other side; the resolved value is the result. */
  onRequest(method: string, params: unknown, id: number | string): Promise<unknown>;
  onNotification(method: string, params: unknown): void;
}

type Pending = { resolve: (value: unknown) => void; reject: (error: Error) => void; method: string };

export class JsonRpcPeer {
  readonly #options: JsonRpcPeerOptions;
  readonly #pending = new Map<number | string, Pending>();
  #nextId = 1;
  #closedWith: Error | undefined;

  constructor(options: JsonRpcPeerOptions) {
    this.#options = options;
  }

  /** Sends a request and resolves with its result (rejects with {@link JsonRpcError}). */
  request(method: string, params?: unknown): Promise<unknown> {
    if (this.#closedWith !== undefined) return Promise.reject(this.#closedWith);
    const id = this.#nextId++;
    return new Promise((resolve, reject) => {
      this.#pending.set(id, { resolve, reject, method });
      if (!this.#write({ id, method, ...defined({ params }) })) {
        this.#pending.delete(id);
        reject(new Error(`cannot send ${method}: the agent's stdin is closed`));
      }
    });
  }

  notify(method: string, params?: unknown): void {
    this.#write({ method, ...defined({ params }) });
  }

  /** Methods of requests still waiting for a response. */
  pendingMethods(): string[] {
    return [...this.#pending.values()].map((p) => p.method);
  }

  /** Feeds one parsed message; returns false when it is not JSON-RPC at all. */
  receive(message: unknown): boolean {
    if (typeof message !== 'object' || message === null || Array.isArray(message)) return false;
    const m = message as Record<string, unknown>;
    const id = m.id;
    const hasId = typeof id === 'number' || typeof id === 'string';
    if (typeof m.method === 'string') {
      if (hasId) this.#answer(id, m.method, m.params);
      else this.#options.onNotification(m.method, m.params);
      return true;
    }
    if (hasId && ('result' in m || 'error' in m)) {
      const pending = this.#pending.get(id);
      if (pending === undefined) return true;
      this.#pending.delete(id);
      if ('error' in m && m.error !== undefined && m.error !== null) pending.reject(toRpcError(m.error));
      else pending.resolve(m.result);
      return true;
    }
    return false;
  }

  /** Rejects every pending request (the agent exited); later requests reject at once. */
  close(error: Error): void {
    this.#closedWith ??= error;
    for (const pending of this.#pending.values()) pending.reject(error);
    this.#pending.clear();
  }

  #answer(id: number | string, method: string, params: unknown): void {
    this.#options.onRequest(method, params, id).then(
      (result) => this.#write({ id, result: result ?? null }),
      (error: unknown) => {
        const rpc =
          error instanceof JsonRpcError
            ? error
            : new JsonRpcError(RPC_INTERNAL_ERROR, error instanceof Error ? error.message : String(error));
        this.#write({
          id,
          error: { code: rpc.code, message: rpc.message, ...defined({ data: rpc.data }) },
        });
      },
    );
  }

  #write(message: Record<string, unknown>): boolean {
    const full = this.#options.includeVersion ? { jsonrpc: '2.0', ...message } : message;
    return this.#options.send(JSON.stringify(full));
  }
}

function toRpcError(error: unknown): JsonRpcError {
  if (typeof error === 'object' && error !== null) {
    const e = error as { code?: unknown; message?: unknown; data?: unknown };
    const message = typeof e.message === 'string' ? e.message : JSON.stringify(error);
    const details = detailsOf(e.data);
    return new JsonRpcError(
      typeof e.code === 'number' ? e.code : RPC_INTERNAL_ERROR,
      details === undefined || message.includes(details) ? message : `${message}: ${details}`,
      e.data,
    );
  }
  return new JsonRpcError(RPC_INTERNAL_ERROR, String(error));
}

/**
 * What an error's `data` says beyond its message: ACP agents answer a failure with the bare
 * "Internal error" and put the cause in `data.details` (or a string `data`).
 */
function detailsOf(data: unknown): string | undefined {
  if (typeof data === 'string') return data.trim() === '' ? undefined : data;
  const details = (data as { details?: unknown } | null | undefined)?.details;
  return typeof details === 'string' && details.trim() !== '' ? details : undefined;
}
