import type { AgentEvent, StartSessionOptions } from '../types.js';
import type { SessionContext } from './context.js';

/** What of the provisioning plan the agent uses: instructions, skill folders and the MCP servers that connected. */
export function provisionReport(
  plan: NonNullable<StartSessionOptions['provision']>,
  context: SessionContext,
): Omit<Extract<AgentEvent, { type: 'provision' }>, 'type'> {
  const applied: string[] = [];
  const ignored: string[] = [];
  const reasons: Record<string, string> = {};
  if (plan.instructions !== undefined && plan.instructions.trim() !== '') applied.push('instructions');
  for (const dir of plan.skillDirs ?? []) {
    const found = context.skills
      .filter((s) => s.dir === dir || s.dir.startsWith(`${dir}/`))
      .map((s) => `skill:${s.name}`);
    if (found.length > 0) applied.push(...found);
    else {
      ignored.push(`skill:${dir}`);
      reasons[`skill:${dir}`] = 'no skill (a SKILL.md with a name) was found in it';
    }
  }
  const servers = context.mcp?.servers ?? [];
  for (const server of servers) {
    if (server.status === 'connected') applied.push(`mcp:${server.server}`);
    else {
      ignored.push(`mcp:${server.server}`);
      reasons[`mcp:${server.server}`] = server.reason;
    }
  }
  return {
    applied,
    ignored,
    ...(Object.keys(reasons).length > 0 ? { reasons } : {}),
    ...(servers.length > 0 ? { mcp: servers } : {}),
  };
}
