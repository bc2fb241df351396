import type { AgentEvent, StartSessionOptions } from '../types.js';
import type { SessionContext } from './context.js';

/** What of the provisioning plan the agent uses: instructions, skill folders and the MCP servers that connected. */
export function provisionReport(
  plan: NonNullable<StartSessionOptions['provision']>,
  context: SessionContext,
): Omit<Extract<AgentEvent, { type: 'provision' }>, 'type'> {
  const applied: string[] = [];
  const ignored: string[] = [];
  if (plan.instructions !== undefined && plan.instructions.trim() !== '') applied.push('instructions');
  for (const dir of plan.skillDirs ?? []) {
    const found = context.skills
      .filter((s) => s.dir === dir || s.dir.startsWith(`${dir}/`))
      .map((s) => `skill:${s.name}`);
    if (found.length > 0) applied.push(...found);
    else ignored.push(`skill:${dir}`);
  }
  const servers = context.mcp?.servers ?? [];
  for (const server of servers) (server.status === 'connected' ? applied : ignored).push(`mcp:${server.server}`);
  return { applied, ignored, ...(servers.length > 0 ? { mcp: servers } : {}) };
}
