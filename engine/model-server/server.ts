import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ModelScript } from '../generated/model-script.js';
import { NeoError, UsageError, errorMessage } from '../util/errors.js';
import { handleModelRequest, type Exchange } from './handle-model.js';
import { handleOther } from './handle-other.js';
import { parseBody, readBody } from './read-body.js';
import { redactHeaders, redactQuery, RequestLog, type LoggedRequest } from './request-log.js';
import { sendJson } from './respond.js';
import { route } from './routes.js';
import { TurnBook, type TurnBookState } from './turn-book.js';
import { defined } from '../util/defined.js';

/** Options for {@link startModelServer}. */
export interface ModelServerOptions {
  /** A validated script (see loadModelScript). */
  script: ModelScript;
  /** 0 (the default) picks a free port. */
  port?: number;
  /** Loopback only: 127.0.0.1 (default), ::1 or localhost. */
  host?: string;
  /** Also append every logged request to this JSONL file. */
  log?: string;
  /** Called for every logged request (the CLI prints a line per request). */
  onRequest?: (entry: LoggedRequest) => void;
  /** Placeholder values (`{{name}}`); they win over the script's `vars` and the detected cwd. */
  vars?: Record<string, string>;
  /** Makes generated ids deterministic (tests); random by default so ids never repeat across servers. */
  nonce?: string;
  /** Milliseconds since the epoch, for `created` fields (tests pin it). */
  clock?: () => number;
}

/** A running scripted model server. */
export interface ModelServer {
  /** `http://127.0.0.1:<port>`, no trailing slash and no `/v1`. */
  readonly url: string;
  readonly port: number;
  /** Every request so far, in arrival order (a live view). */
  readonly requests: readonly LoggedRequest[];
  /** Resolves with the first request (past or future) matching the predicate. */
  waitForRequest(predicate: (entry: LoggedRequest) => boolean, timeoutMs?: number): Promise<LoggedRequest>;
  /** Turn usage so far. */
  state(): TurnBookState;
  /** Replaces the script and starts its turns afresh (the request log is kept). */
  setScript(script: ModelScript): void;
  /** Stops listening, ends open (stalled) responses and flushes the log. Idempotent. */
  close(): Promise<void>;
}

const LOOPBACK = new Set(['127.0.0.1', '::1', 'localhost']);

/**
 * Starts the scripted model server on loopback. It answers Anthropic Messages, OpenAI Responses,
 * OpenAI Chat Completions and Gemini requests turn by turn from the script, answers the CLIs'
 * auxiliary calls without spending turns, and logs every request.
 */
export async function startModelServer(options: ModelServerOptions): Promise<ModelServer> {
  const host = options.host ?? '127.0.0.1';
  if (!LOOPBACK.has(host)) {
    throw new UsageError('MODEL_HOST_NOT_LOOPBACK', `the model server binds to loopback only; got host ${host}`, {
      hint: 'use 127.0.0.1 (the default), ::1 or localhost',
    });
  }
  const log = new RequestLog(defined({ file: options.log, onRequest: options.onRequest }));
  const shared = {
    book: new TurnBook(options.script),
    nonce: options.nonce ?? `neo${randomBytes(4).toString('hex')}`,
    clock: options.clock ?? Date.now,
    vars: options.vars ?? {},
    seq: 0,
  };
  const active = new Set<AbortController>();

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const controller = new AbortController();
    active.add(controller);
    let entry: LoggedRequest | undefined;
    res.on('close', () => {
      active.delete(controller);
      if (!res.writableFinished) {
        controller.abort();
        if (entry !== undefined) entry.aborted = true;
      }
    });
    const seq = ++shared.seq;
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const method = req.method ?? 'GET';
    const target = route(method, url.pathname);
    let raw: Buffer;
    try {
      raw = await readBody(req);
    } catch (error) {
      const status = error instanceof NeoError && error.code === 'MODEL_BODY_TOO_LARGE' ? 413 : 415;
      sendJson(res, status, { error: { type: 'invalid_request_error', message: errorMessage(error) } });
      return;
    }
    const { value: body, json } = parseBody(raw);
    entry = {
      seq,
      time: new Date(shared.clock()).toISOString(),
      method,
      path: url.pathname,
      query: redactQuery(url.searchParams),
      headers: redactHeaders(req.headers),
      body,
      role: 'other',
      warnings: [],
    };
    const exchange: Exchange = {
      req,
      res,
      url,
      entry,
      body,
      json,
      requestChars: raw.length,
      signal: controller.signal,
      log,
    };
    if (
      target.kind === 'anthropic' ||
      target.kind === 'responses' ||
      target.kind === 'chat' ||
      (target.kind === 'gemini' && target.action !== 'countTokens')
    ) {
      await handleModelRequest(exchange, target, { ...shared, base: `${shared.nonce}_${seq}` });
    } else {
      handleOther(exchange, target, { script: shared.book.script, state: () => shared.book.state() });
    }
  };

  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      if (!res.headersSent)
        sendJson(res, 500, { error: { type: 'api_error', message: `neo model server: ${errorMessage(error)}` } });
      else res.destroy();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  const urlHost = host === '::1' ? '[::1]' : host;
  let closing: Promise<void> | undefined;
  return {
    url: `http://${urlHost}:${port}`,
    port,
    requests: log.entries,
    waitForRequest: (predicate, timeoutMs) => log.waitFor(predicate, timeoutMs),
    state: () => shared.book.state(),
    setScript(script) {
      shared.book = new TurnBook(script);
    },
    close() {
      closing ??= (async () => {
        for (const controller of active) controller.abort();
        await new Promise<void>((resolve) => {
          server.close(() => resolve());
          server.closeAllConnections();
        });
        await log.close();
      })();
      return closing;
    },
  };
}
