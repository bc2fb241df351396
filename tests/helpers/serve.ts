import { request as httpRequest } from 'node:http';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { startServer, type RunningServer, type ServeOptions } from '../../engine/server/index.js';
import { silentLog } from '../../engine/session/index.js';
import { tempDir } from './temp.js';
import { defined } from '../../engine/util/defined.js';

/** A server on a free loopback port with its own NEO_HOME and a stand-in web UI. */
export async function startTestServer(
  options: Partial<ServeOptions> = {},
): Promise<{ server: RunningServer; home: string; api: Api }> {
  const home = options.home ?? (await tempDir('neo-serve-home-'));
  const webRoot = join(home, 'web');
  await mkdir(join(webRoot, 'assets'), { recursive: true });
  await writeFile(join(webRoot, 'index.html'), '<!doctype html><title>neo</title>');
  await writeFile(join(webRoot, 'assets', 'app.js'), 'console.log(1)');
  const server = await startServer({ port: 0, log: silentLog, webRoot, heartbeatMs: 200, ...options, home });
  return { server, home, api: apiOf(server) };
}

export interface ApiResponse {
  status: number;
  headers: Headers;
  body: { ok: boolean; data?: any; error?: { code: string; message: string; hint?: string } };
}

export type Api = (
  path: string,
  init?: { method?: string; json?: unknown; body?: string; token?: string | null; headers?: Record<string, string> },
) => Promise<ApiResponse>;

/** Calls the server with its token (or `token: null` for none), JSON in and out. */
export function apiOf(server: RunningServer): Api {
  return async (path, init = {}) => {
    const headers: Record<string, string> = { ...init.headers };
    const token = init.token === undefined ? server.token : init.token;
    if (token !== null) headers.authorization = `Bearer ${token}`;
    let body = init.body;
    if (init.json !== undefined) {
      body = JSON.stringify(init.json);
      headers['content-type'] ??= 'application/json';
    }
    const response = await fetch(`${server.origin}${path}`, {
      method: init.method ?? (body === undefined ? 'GET' : 'POST'),
      headers,
      ...defined({ body }),
    });
    const text = await response.text();
    let parsed: ApiResponse['body'];
    try {
      parsed = JSON.parse(text) as ApiResponse['body'];
    } catch {
      parsed = { ok: false, error: { code: 'NOT_JSON', message: text } };
    }
    return { status: response.status, headers: response.headers, body: parsed };
  };
}

export interface SseEvent {
  id?: string;
  event?: string;
  data: string;
}

/** A Server-Sent Events client over fetch: every event it got, and a way to wait for one. */
export class SseClient {
  readonly events: SseEvent[] = [];
  readonly #controller = new AbortController();
  readonly #waiters: Array<{ test: (e: SseEvent) => boolean; resolve: (e: SseEvent) => void }> = [];
  status = 0;
  readonly done: Promise<void>;

  constructor(url: string, headers: Record<string, string>) {
    this.done = this.#run(url, headers).catch(() => undefined);
  }

  async #run(url: string, headers: Record<string, string>): Promise<void> {
    const response = await fetch(url, { headers, signal: this.#controller.signal });
    this.status = response.status;
    if (response.body === null) return;
    const decoder = new TextDecoder();
    let buffer = '';
    for await (const chunk of response.body) {
      buffer += decoder.decode(chunk as Uint8Array, { stream: true });
      let cut = buffer.indexOf('\n\n');
      while (cut >= 0) {
        const block = buffer.slice(0, cut);
        buffer = buffer.slice(cut + 2);
        cut = buffer.indexOf('\n\n');
        const event: SseEvent = { data: '' };
        const data: string[] = [];
        for (const line of block.split('\n')) {
          if (line.startsWith('data: ')) data.push(line.slice(6));
          else if (line.startsWith('id: ')) event.id = line.slice(4);
          else if (line.startsWith('event: ')) event.event = line.slice(7);
        }
        if (data.length === 0) continue;
        event.data = data.join('\n');
        this.events.push(event);
        for (const waiter of [...this.#waiters])
          if (waiter.test(event)) {
            this.#waiters.splice(this.#waiters.indexOf(waiter), 1);
            waiter.resolve(event);
          }
      }
    }
  }

  /** The first event (already seen or still to come) that passes `test`. */
  waitFor(test: (event: SseEvent) => boolean, timeoutMs = 20_000): Promise<SseEvent> {
    const seen = this.events.find(test);
    if (seen !== undefined) return Promise.resolve(seen);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(
        () =>
          reject(
            new Error(`no matching SSE event in ${timeoutMs} ms; got ${this.events.map((e) => e.event).join(', ')}`),
          ),
        timeoutMs,
      );
      this.#waiters.push({
        test,
        resolve: (e) => {
          clearTimeout(timer);
          resolve(e);
        },
      });
    });
  }

  close(): Promise<void> {
    this.#controller.abort();
    return this.done;
  }
}

/** The JSON of every event of `topic`. */
export function dataOf<T = any>(events: readonly SseEvent[], topic: string): T[] {
  return events.filter((e) => e.event === topic).map((e) => JSON.parse(e.data) as T);
}

/** A request sent exactly as given (path bytes and Host untouched, unlike fetch). */
export function rawRequest(
  server: RunningServer,
  path: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const request = httpRequest(
      { host: '127.0.0.1', port: server.port, path, method: 'GET', headers, setHost: headers.host === undefined },
      (response) => {
        let body = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => (body += chunk));
        response.on('end', () => resolve({ status: response.statusCode ?? 0, body }));
      },
    );
    request.on('error', reject);
    request.end();
  });
}
