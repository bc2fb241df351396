/**
 * Asks about the tools of MCP servers neo provisioned for a session from its capability catalog
 * (seed 004 §9). neo knows these servers from its own plan, never from the agent, so it can say
 * what their tools are: a tool the entry declares read-only is a read (it runs under every
 * posture, plan included); any other tool of the server is at least a command — whatever kind a
 * backend's adapter guessed — so plan refuses it and the other postures gate it as they gate
 * commands. A rules driver then allows it where no rule of its own decides (answer.ts): the
 * owner already admitted the server when the catalog's trust gate let it through. Pure.
 */
import type { ToolAsk } from './ask.js';

/** One provisioned server as the gate needs it: which of its tools its entry declares read-only. */
export interface CuratedMcpServer {
  readOnly?: boolean | readonly string[];
}

/** The session's provisioned MCP servers, by server name. */
export type CuratedMcp = Readonly<Record<string, CuratedMcpServer>>;

/**
 * The ask as the posture gate judges it: for a tool `mcp__<server>__<tool>` of a provisioned
 * server, kind `read` (declared read-only) or `execute` (anything else) and `curatedMcp` set;
 * any other ask unchanged. The longest server name wins, so `a__b` is never read as `a`.
 */
export function curatedMcpAsk(ask: ToolAsk, curated: CuratedMcp | undefined): ToolAsk {
  if (curated === undefined || !ask.toolName.startsWith('mcp__')) return ask;
  let match: { server: string; tool: string } | undefined;
  for (const server of Object.keys(curated)) {
    const prefix = `mcp__${server}__`;
    if (!ask.toolName.startsWith(prefix) || ask.toolName.length === prefix.length) continue;
    if (match === undefined || server.length > match.server.length)
      match = { server, tool: ask.toolName.slice(prefix.length) };
  }
  if (match === undefined) return ask;
  const readOnly = curated[match.server]!.readOnly;
  const read = readOnly === true || (Array.isArray(readOnly) && readOnly.includes(match.tool));
  return { ...ask, kind: read ? 'read' : 'execute', curatedMcp: match.server };
}
