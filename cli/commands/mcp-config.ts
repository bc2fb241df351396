/**
 * `--mcp-config`: the MCP servers of one session, as Claude Code's flag of the same name takes
 * them — a file (or inline JSON) holding `{"mcpServers": {<name>: {command, args, env} | {type,
 * url, headers}}}`. Read by the CLI, so only whoever runs neo names programs for a session.
 */
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { UsageError } from '../../engine/util/errors.js';

export async function readMcpConfig(cwd: string, value: string): Promise<Record<string, unknown>> {
  const inline = value.trimStart().startsWith('{');
  const where = inline ? '--mcp-config' : resolve(cwd, value);
  let text = value;
  if (!inline) {
    try {
      text = await readFile(where, 'utf8');
    } catch (error) {
      throw new UsageError('CLI_BAD_OPTION', `--mcp-config: cannot read ${where}: ${(error as Error).message}`, {
        hint: 'give a JSON file holding {"mcpServers": {...}}, or the JSON itself',
      });
    }
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new UsageError('CLI_BAD_OPTION', `--mcp-config: ${where} is not JSON: ${(error as Error).message}`);
  }
  const servers = (parsed as { mcpServers?: unknown } | null)?.mcpServers;
  if (typeof servers !== 'object' || servers === null || Array.isArray(servers))
    throw new UsageError('CLI_BAD_OPTION', `--mcp-config: ${where} has no "mcpServers" object`, {
      hint: 'write {"mcpServers": {"docs": {"command": "node", "args": ["server.mjs"]}}}',
    });
  return servers as Record<string, unknown>;
}
