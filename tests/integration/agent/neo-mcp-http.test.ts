/**
 * A remote MCP server over streamable HTTP: neo's own agent connects with the SDK's client,
 * sends the headers its config lists (a `${NAME}` read from the session's environment), calls a
 * tool, and keeps the header's value out of everything it reports.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { AgentEvent } from '../../../engine/transports/index.js';
import { harness, type Harness } from '../../fixtures/agent/neo-harness.js';

const AUTH = 'remote-login-93jf02';

let h: Harness | undefined;
let http: Server | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
  await new Promise((resolve) => (http ? http.close(resolve) : resolve(undefined)));
  http = undefined;
});

/** A stateless streamable-HTTP MCP server with one tool that reports the Authorization it saw. */
async function remoteServer(): Promise<string> {
  http = createServer((req, res) => {
    const server = new McpServer({ name: 'remote', version: '1.0.0' });
    server.registerTool(
      'whoami',
      { description: 'Who calls.', inputSchema: { greeting: z.string() } },
      async ({ greeting }) => ({
        content: [
          {
            type: 'text',
            text: `${greeting}, ${req.headers.authorization === `Bearer ${AUTH}` ? 'authorized' : 'anonymous'} caller (${AUTH})`,
          },
        ],
      }),
    );
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    res.on('close', () => void transport.close());
    void server.connect(transport).then(() => transport.handleRequest(req, res));
  });
  await new Promise<void>((resolve) => http!.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`;
}

describe("neo's own agent with a streamable HTTP MCP server", () => {
  it('connects with the listed headers, calls the tool, and redacts the header value it read', async () => {
    const url = await remoteServer();
    h = await harness(
      { turns: [{ tools: [{ name: 'mcp__remote__whoami', arguments: { greeting: 'hello' } }] }, { text: 'done' }] },
      { posture: 'full' },
    );
    h.env.REMOTE_LOGIN = AUTH;
    const reader = await h.start({
      provision: {
        mcpServers: { remote: { type: 'http', url, headers: { Authorization: 'Bearer ${REMOTE_LOGIN}' } } },
      },
    });
    const events = await reader.until('turn_complete');
    expect(events.find((e) => e.type === 'provision')).toMatchObject({
      applied: ['mcp:remote'],
      mcp: [
        { server: 'remote', status: 'connected', transport: 'http', tools: ['mcp__remote__whoami'], readOnlyTools: [] },
      ],
    });
    const results = events.flatMap((e: AgentEvent) => (e.type === 'tool_result' ? [e.output] : []));
    expect(results).toEqual(['hello, authorized caller ([redacted ${REMOTE_LOGIN}])']);
    expect(JSON.stringify(h.server.requests.map((r) => r.body))).not.toContain(AUTH);
  }, 60_000);
});
