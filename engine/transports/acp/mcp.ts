import type { AgentEvent, ProvisionPlan } from '../types.js';

type Json = Record<string, unknown>;

export type AcpProvisionReport = Omit<Extract<AgentEvent, { type: 'provision' }>, 'type'>;

/** What of the plan an ACP agent took: the servers it can reach, the instructions (in the prompt), never a skill. */
export function acpProvisionReport(mcp: ReturnType<typeof acpMcpServers>, plan: ProvisionPlan): AcpProvisionReport {
  const applied = [...mcp.applied];
  if (plan.instructions !== undefined && plan.instructions.trim() !== '') applied.push('instructions');
  const skills = (plan.skillDirs ?? []).map((dir) => `skill:${dir}`);
  const reasons = { ...mcp.reasons };
  for (const skill of skills) reasons[skill] = 'the Agent Client Protocol has no way to hand an agent a skill';
  const ignored = [...mcp.ignored, ...skills];
  return Object.keys(reasons).length === 0 ? { applied, ignored } : { applied, ignored, reasons };
}

/**
 * Converts provisioned MCP servers (Claude-style `{command, args, env}` or `{type: http|sse,
 * url, headers}` keyed by name) into ACP's McpServer list. Transports the agent did not
 * advertise (mcpCapabilities.http / .sse) are left out and reported as ignored.
 */
export function acpMcpServers(
  servers: Record<string, unknown> | undefined,
  capabilities: { http?: unknown; sse?: unknown },
): { list: Json[]; applied: string[]; ignored: string[]; reasons: Record<string, string> } {
  const list: Json[] = [];
  const applied: string[] = [];
  const ignored: string[] = [];
  const reasons: Record<string, string> = {};
  for (const [name, raw] of Object.entries(servers ?? {})) {
    const server = (typeof raw === 'object' && raw !== null ? raw : {}) as Json;
    const type = server.type ?? (typeof server.url === 'string' ? 'http' : 'stdio');
    if (type === 'stdio' && typeof server.command === 'string') {
      list.push({
        name,
        command: server.command,
        args: Array.isArray(server.args) ? server.args.map(String) : [],
        env: pairs(server.env, 'name'),
      });
      applied.push(`mcp:${name}`);
    } else if ((type === 'http' || type === 'sse') && typeof server.url === 'string' && capabilities[type] === true) {
      list.push({ type, name, url: server.url, headers: pairs(server.headers, 'name') });
      applied.push(`mcp:${name}`);
    } else {
      ignored.push(`mcp:${name}`);
      reasons[`mcp:${name}`] =
        (type === 'http' || type === 'sse') && typeof server.url === 'string'
          ? `the agent does not advertise ${type} MCP servers (mcpCapabilities.${type})`
          : 'it names neither a command nor a URL';
    }
  }
  return { list, applied, ignored, reasons };
}

function pairs(record: unknown, key: 'name'): Json[] {
  if (typeof record !== 'object' || record === null) return [];
  return Object.entries(record as Record<string, unknown>).map(([name, value]) => ({
    [key]: name,
    value: String(value),
  }));
}
