/**
 * The deadlines of a request (the header wait, the idle time between reads), all checked by one
 * shared watchdog. In a file of their own: the watchdog is module state, and the first test needs
 * it fresh, so that it starts at the long request's period and must adopt the short one's.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { postStream } from '../../../engine/agent/http/stream-request.js';

let server: http.Server | undefined;
afterEach(async () => {
  server?.closeAllConnections();
  await new Promise((resolve) => (server ? server.close(resolve) : resolve(undefined)));
  server = undefined;
});

describe('deadlines', () => {
  /** A server that answers nothing until the test ends, or sends headers and one chunk, then stalls. */
  async function silent(mode: 'no-headers' | 'stall'): Promise<string> {
    server = http.createServer((_req, res) => {
      if (mode === 'stall') {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.write('data: {}\n\n');
      }
    });
    await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  }

  it('bound the header wait, never early and on time even beside a request with a far longer one', async () => {
    const url = await silent('no-headers');
    const patient = new AbortController();
    // Its deadline is checked every 7.5 s; the short one must still be checked every 37.5 ms.
    const long = postStream({
      provider: 'test',
      url,
      headers: {},
      body: '{}',
      headersTimeoutMs: 60_000,
      idleTimeoutMs: 60_000,
      signal: patient.signal,
    }).catch((e: unknown) => e);
    const started = Date.now();
    const error = (await postStream({
      provider: 'test',
      url,
      headers: {},
      body: '{}',
      headersTimeoutMs: 300,
      idleTimeoutMs: 60_000,
    }).catch((e: unknown) => e)) as { code: string; message: string };
    const waited = Date.now() - started;
    expect(error).toMatchObject({ code: 'MODEL_TIMEOUT', message: 'test: no response headers after 300ms' });
    expect(waited).toBeGreaterThanOrEqual(300);
    expect(waited).toBeLessThan(2300);
    patient.abort();
    expect(await long).toMatchObject({ code: 'AGENT_INTERRUPTED' });
  });

  it('cancel a body that goes quiet, counting from the last read', async () => {
    const url = await silent('stall');
    const response = await postStream({
      provider: 'test',
      url,
      headers: {},
      body: '{}',
      headersTimeoutMs: 5000,
      idleTimeoutMs: 300,
    });
    let lastRead = 0;
    const error = (await response.consume(() => (lastRead = Date.now())).catch((e: unknown) => e)) as {
      code: string;
      message: string;
    };
    const quiet = Date.now() - lastRead;
    expect(error).toMatchObject({ code: 'MODEL_STREAM_STALLED', message: 'test: stream stalled: no data for 300ms' });
    expect(lastRead).toBeGreaterThan(0);
    expect(quiet).toBeGreaterThanOrEqual(300);
    expect(quiet).toBeLessThan(2300);
  });
});
