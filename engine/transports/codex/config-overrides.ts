/**
 * Provisioned MCP servers as `codex -c` config overrides: one `mcp_servers.<name>=<TOML inline
 * table>` per server. `thread/start`'s `config` does not start MCP servers (codex 0.171 reads them
 * when it loads its config at launch), so they ride on the command line of `codex app-server`.
 */
type Toml = string | number | boolean | Toml[] | { [key: string]: Toml };

export function mcpOverrideArgs(servers: Record<string, unknown> | undefined): string[] {
  const args: string[] = [];
  for (const [name, table] of Object.entries(servers ?? {}))
    args.push('-c', `mcp_servers.${key(name)}=${toml(table as Toml)}`);
  return args;
}

function key(name: string): string {
  return /^[A-Za-z0-9_-]+$/.test(name) ? name : JSON.stringify(name);
}

function toml(value: Toml): string {
  if (typeof value === 'string') return JSON.stringify(value);
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (Array.isArray(value)) return `[${value.map(toml).join(', ')}]`;
  return `{${Object.entries(value)
    .filter(([, v]) => v !== undefined)
    .map(([k, v]) => `${key(k)} = ${toml(v)}`)
    .join(', ')}}`;
}
