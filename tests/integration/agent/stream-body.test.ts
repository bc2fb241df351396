import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { postStream } from '../../../engine/agent/http/stream-request.js';

let server: http.Server | undefined;
afterEach(async () => {
  await new Promise((resolve) => (server ? server.close(resolve) : resolve(undefined)));
  server = undefined;
});

/** A server that answers with `pieces`, each its own write, a few milliseconds apart. */
async function serveBytes(pieces: readonly Buffer[]): Promise<string> {
  server = http.createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    let i = 0;
    const next = (): void => {
      if (i === pieces.length) return void res.end();
      res.write(pieces[i++]);
      setTimeout(next, 15);
    };
    next();
  });
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
}

async function readBody(url: string): Promise<string[]> {
  const response = await postStream({
    provider: 'test',
    url,
    headers: {},
    body: '{}',
    headersTimeoutMs: 5000,
    idleTimeoutMs: 5000,
  });
  const chunks: string[] = [];
  await response.consume((chunk) => chunks.push(chunk));
  return chunks;
}

describe('reading a streamed body', () => {
  it('keeps a multi-byte character whole when a read ends in the middle of it', async () => {
    const bytes = Buffer.from('data: {"text":"crème brûlée 🍮"}\n\n');
    // One cut inside è (2 bytes), one inside the 4-byte emoji.
    const cuts = [bytes.indexOf(0xa8), bytes.indexOf(0xf0) + 2] as const;
    const url = await serveBytes([
      bytes.subarray(0, cuts[0]),
      bytes.subarray(cuts[0], cuts[1]),
      bytes.subarray(cuts[1]),
    ]);
    const chunks = await readBody(url);
    expect(chunks.length).toBeGreaterThan(1);
    expect(chunks.join('')).toBe('data: {"text":"crème brûlée 🍮"}\n\n');
  });

  it('ends a body cut off inside a character with U+FFFD, as a decoder would', async () => {
    const url = await serveBytes([Buffer.from('ok '), Buffer.from([0xe2, 0x82])]);
    expect((await readBody(url)).join('')).toBe('ok \uFFFD');
  });
});
