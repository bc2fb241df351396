import { JsonlAppender } from '../util/jsonl.js';
import { NeoError } from '../util/errors.js';
import type { ApiKind } from './request-view.js';

/** What the server sent back, in short. */
export interface ReplySummary {
  kind: 'reply' | 'error';
  status: number;
  text?: string;
  tools?: string[];
  stall?: boolean;
}

/** One request the server received, secrets removed. */
export interface LoggedRequest {
  /** 1-based arrival number. */
  seq: number;
  time: string;
  method: string;
  /** The path without the query string. */
  path: string;
  query: Record<string, string>;
  headers: Record<string, string>;
  /** The parsed JSON body, the raw text when it is not JSON, or null when empty. */
  body: unknown;
  /** `main` took (or looked for) a script turn, `aux` was answered without one, `other` is any other endpoint. */
  role: 'main' | 'aux' | 'other';
  api?: ApiKind;
  model?: string;
  stream?: boolean;
  toolsOffered?: string[];
  /** 0-based index of the script turn that answered. */
  turn?: number;
  /** No turn matched; the fallback answered. */
  fallback?: boolean;
  reply?: ReplySummary;
  /** Script problems seen at run time (a tool the request did not offer, …). */
  warnings: string[];
  /** Set (in memory only) when the client went away before the reply was complete. */
  aborted?: boolean;
}

const SECRET_HEADER = /authorization|api[-_]?key|token|secret|cookie|password/i;
const SECRET_QUERY = /^(key|api[-_]?key|token|access_token)$/i;

/** Headers as a plain map with credentials replaced by `[redacted]`. */
export function redactHeaders(headers: Record<string, string | string[] | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined) continue;
    out[name] = SECRET_HEADER.test(name) ? '[redacted]' : Array.isArray(value) ? value.join(', ') : value;
  }
  return out;
}

/** Query parameters with credentials (Gemini's `?key=`) redacted. */
export function redactQuery(params: URLSearchParams): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of params) out[name] = SECRET_QUERY.test(name) ? '[redacted]' : value;
  return out;
}

type Waiter = {
  predicate: (entry: LoggedRequest) => boolean;
  resolve: (entry: LoggedRequest) => void;
  reject: (error: unknown) => void;
  timer: NodeJS.Timeout;
};

/** The request log: in memory for tests, and optionally appended to a JSONL file. */
export class RequestLog {
  readonly entries: LoggedRequest[] = [];
  readonly #appender: JsonlAppender | undefined;
  readonly #listeners: Array<(entry: LoggedRequest) => void>;
  #waiters: Waiter[] = [];

  constructor(options: { file?: string; onRequest?: (entry: LoggedRequest) => void } = {}) {
    this.#appender = options.file === undefined ? undefined : new JsonlAppender(options.file);
    this.#listeners = options.onRequest === undefined ? [] : [options.onRequest];
  }

  add(entry: LoggedRequest): void {
    this.entries.push(entry);
    // A failing log file must not take the model server down; the entry stays in memory.
    this.#appender?.append(entry).catch(() => undefined);
    for (const listener of this.#listeners) listener(entry);
    for (const waiter of [...this.#waiters]) {
      if (!waiter.predicate(entry)) continue;
      clearTimeout(waiter.timer);
      this.#waiters = this.#waiters.filter((w) => w !== waiter);
      waiter.resolve(entry);
    }
  }

  /** The first logged request (past or future) matching `predicate`; rejects after `timeoutMs`. */
  waitFor(predicate: (entry: LoggedRequest) => boolean, timeoutMs = 30_000): Promise<LoggedRequest> {
    const found = this.entries.find(predicate);
    if (found !== undefined) return Promise.resolve(found);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.#waiters = this.#waiters.filter((w) => w.timer !== timer);
        reject(
          new NeoError(
            'MODEL_WAIT_TIMEOUT',
            `no matching model request arrived within ${timeoutMs} ms (${this.entries.length} requests so far)`,
          ),
        );
      }, timeoutMs);
      this.#waiters.push({ predicate, resolve, reject, timer });
    });
  }

  async close(): Promise<void> {
    for (const waiter of this.#waiters) {
      clearTimeout(waiter.timer);
      waiter.reject(new NeoError('MODEL_SERVER_CLOSED', 'the model server closed before a matching request arrived'));
    }
    this.#waiters = [];
    await this.#appender?.close();
  }
}
