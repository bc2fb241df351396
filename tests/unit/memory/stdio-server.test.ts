import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { serveStdio, type StdioToolServer } from '../../../engine/memory/mcp/stdio-server.js';

/** Feeds `lines` to a server and returns every message it wrote, in order. */
async function exchange(server: StdioToolServer, lines: string[]): Promise<Array<Record<string, unknown>>> {
  const input = new PassThrough();
  const output = new PassThrough();
  let written = '';
  output.on('data', (chunk: Buffer) => (written += chunk.toString()));
  const served = serveStdio(server, input, output);
  for (const line of lines) input.write(`${line}\n`);
  input.end();
  await served;
  return written
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

const server: StdioToolServer = {
  name: 'probe',
  version: '1.2.3',
  instructions: 'use the tools',
  tools: [{ name: 'echo', description: 'echoes', inputSchema: { type: 'object' } }],
  call: async (name, input) => ({ content: [{ type: 'text', text: `${name}:${JSON.stringify(input)}` }] }),
};

const rpc = (id: number | string, method: string, params?: unknown) =>
  JSON.stringify({ jsonrpc: '2.0', id, method, ...(params === undefined ? {} : { params }) });

describe('the stdio MCP server', () => {
  it('answers initialize with the asked protocol version when it knows it, else its newest', async () => {
    const [known, unknown] = await exchange(server, [
      rpc(1, 'initialize', {
        protocolVersion: '2025-06-18',
        capabilities: {},
        clientInfo: { name: 'c', version: '0' },
      }),
      rpc(2, 'initialize', {
        protocolVersion: '1999-01-01',
        capabilities: {},
        clientInfo: { name: 'c', version: '0' },
      }),
    ]);
    expect(known).toEqual({
      jsonrpc: '2.0',
      id: 1,
      result: {
        protocolVersion: '2025-06-18',
        capabilities: { tools: {} },
        serverInfo: { name: 'probe', version: '1.2.3' },
        instructions: 'use the tools',
      },
    });
    expect((unknown!.result as { protocolVersion: string }).protocolVersion).toBe('2025-11-25');
  });

  it('lists and calls tools, answers ping, and ignores notifications and responses', async () => {
    const answers = await exchange(server, [
      JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
      rpc('a', 'tools/list'),
      rpc(3, 'tools/call', { name: 'echo', arguments: { x: 1 } }),
      rpc(4, 'ping'),
      JSON.stringify({ jsonrpc: '2.0', id: 9, result: {} }),
    ]);
    // Answers go out as each request completes: a call may answer after a later ping.
    expect(answers.sort((a, b) => String(a.id).localeCompare(String(b.id)))).toEqual([
      { jsonrpc: '2.0', id: 3, result: { content: [{ type: 'text', text: 'echo:{"x":1}' }] } },
      { jsonrpc: '2.0', id: 4, result: {} },
      { jsonrpc: '2.0', id: 'a', result: { tools: server.tools } },
    ]);
  });

  it('answers a broken line, an unknown method and a call without a name with JSON-RPC errors', async () => {
    const answers = await exchange(server, [
      '{not json',
      rpc(5, 'resources/list'),
      rpc(6, 'tools/call', { arguments: {} }),
      JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'ping', params: [1] }),
    ]);
    expect(answers.map((a) => [a.id, (a.error as { code: number }).code])).toEqual([
      [null, -32700],
      [5, -32601],
      [6, -32602],
      [7, -32600],
    ]);
  });

  it('answers a call still running when the input ends, and a failing call as an internal error', async () => {
    const slow: StdioToolServer = {
      ...server,
      call: async (name) => {
        await new Promise((resolve) => setTimeout(resolve, 20));
        if (name === 'boom') throw new Error('it broke');
        return { content: [{ type: 'text', text: 'late' }] };
      },
    };
    const answers = await exchange(slow, [
      rpc(1, 'tools/call', { name: 'echo' }),
      rpc(2, 'tools/call', { name: 'boom' }),
    ]);
    expect(answers).toContainEqual({ jsonrpc: '2.0', id: 1, result: { content: [{ type: 'text', text: 'late' }] } });
    expect(answers).toContainEqual({ jsonrpc: '2.0', id: 2, error: { code: -32603, message: 'it broke' } });
  });
});
