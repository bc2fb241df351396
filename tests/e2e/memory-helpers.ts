/** The memory MCP server through the official SDK's client, spawned from the built binary; closed after each test. */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterEach } from 'vitest';
import { NEO_BIN } from '../helpers/cli.js';

const clients: Client[] = [];
afterEach(async () => {
  while (clients.length > 0) await clients.pop()!.close();
});

export async function memoryClient(repo: string, home: string, args: string[] = []): Promise<Client> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [NEO_BIN, 'memory', 'mcp', ...args],
    cwd: repo,
    env: { PATH: process.env.PATH ?? '', NEO_HOME: home, NO_COLOR: '1' },
    stderr: 'pipe',
  });
  const client = new Client({ name: 'neo-test', version: '0.0.0' });
  await client.connect(transport);
  clients.push(client);
  return client;
}

/** A tool result's text. */
export const text = (result: unknown) => (result as { content: Array<{ text: string }> }).content[0]!.text;
