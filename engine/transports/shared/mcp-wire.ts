/**
 * MCP servers as a CLI backend receives them: the shape persona `mcpServers` and capability
 * entries share, minus the keys only neo's own agent reads (`readOnly`, `timeout`), so a CLI that
 * checks its config strictly never sees a key it does not know.
 */
const NEO_ONLY_KEYS: readonly string[] = ['readOnly', 'timeout'];

export function wireMcpServers(servers: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, server] of Object.entries(servers)) {
    if (typeof server !== 'object' || server === null || Array.isArray(server)) {
      out[name] = server;
      continue;
    }
    out[name] = Object.fromEntries(Object.entries(server).filter(([key]) => !NEO_ONLY_KEYS.includes(key)));
  }
  return out;
}
