/**
 * MCP servers in each backend's own shape. Catalog entries (and personas) write them as Claude
 * Code does — `{command, args, env}` or `{type: http|sse, url, headers}`, secrets as `${VAR}`
 * references — and that shape is what Claude Code's `--mcp-config`, ACP's `session/new` (through
 * transports/acp/mcp.ts) and neo's own agent take. Codex takes `mcp_servers.<name>` tables whose
 * secrets are NAMES of environment variables (`env_vars`, `bearer_token_env_var`,
 * `env_http_headers`), never values; ACP agents expand nothing, so their references are filled
 * from the session's environment in memory, never written to a file.
 */
import type { McpServer } from '../generated/capability.js';

export type ServerShape = McpServer & Record<string, unknown>;

const WHOLE_REF = /^\$\{([A-Za-z_][A-Za-z0-9_]*)\}$/;
const ANY_REF = /\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g;
const HAS_REF = /\$\{[A-Za-z_][A-Za-z0-9_]*\}/;

export function transportOf(server: McpServer): 'stdio' | 'http' | 'sse' {
  return server.type ?? (server.url !== undefined ? 'http' : 'stdio');
}

/** The environment variables a server's config refers to. */
export function referencedVars(server: McpServer): string[] {
  const values = [...Object.values(server.env ?? {}), ...Object.values(server.headers ?? {})];
  return [...new Set(values.flatMap((v) => [...v.matchAll(ANY_REF)].map((m) => m[1]!)))];
}

/** Codex's `mcp_servers.<name>` table, or the reason it cannot take the server. */
export function codexServer(server: McpServer): { table: Record<string, unknown> } | { reason: string } {
  const kind = transportOf(server);
  if (kind === 'sse') return { reason: 'Codex takes stdio and streamable-HTTP MCP servers, not SSE' };
  if (kind === 'stdio') {
    const table: Record<string, unknown> = { command: server.command, args: server.args ?? [] };
    const literal: Record<string, string> = {};
    const passed: string[] = [];
    for (const [name, value] of Object.entries(server.env ?? {})) {
      const ref = WHOLE_REF.exec(value);
      if (ref && ref[1] === name) passed.push(name);
      else if (HAS_REF.test(value))
        return { reason: `env ${name} mixes text and a \${…} reference, which Codex cannot pass by name` };
      else literal[name] = value;
    }
    if (Object.keys(literal).length > 0) table.env = literal;
    if (passed.length > 0) table.env_vars = passed;
    return { table };
  }
  const table: Record<string, unknown> = { url: server.url };
  const named: Record<string, string> = {};
  const literal: Record<string, string> = {};
  for (const [header, value] of Object.entries(server.headers ?? {})) {
    const bearer = /^Bearer \$\{([A-Za-z_][A-Za-z0-9_]*)\}$/.exec(value);
    const whole = WHOLE_REF.exec(value);
    if (header.toLowerCase() === 'authorization' && bearer) table.bearer_token_env_var = bearer[1];
    else if (whole) named[header] = whole[1]!;
    else if (HAS_REF.test(value))
      return { reason: `header ${header} mixes text and a \${…} reference, which Codex cannot pass by name` };
    else literal[header] = value;
  }
  if (Object.keys(named).length > 0) table.env_http_headers = named;
  if (Object.keys(literal).length > 0) table.http_headers = literal;
  return { table };
}

/** The server with every `${VAR}` filled from `env` (for agents that expand nothing). */
export function expandedServer(server: ServerShape, env: NodeJS.ProcessEnv): ServerShape {
  const fill = (record: Record<string, string> | undefined) =>
    record === undefined
      ? undefined
      : Object.fromEntries(
          Object.entries(record).map(([k, v]) => [k, v.replace(ANY_REF, (_, name: string) => env[name] ?? '')]),
        );
  const copy: ServerShape = { ...server };
  const env2 = fill(server.env);
  const headers = fill(server.headers);
  if (env2 !== undefined) copy.env = env2;
  if (headers !== undefined) copy.headers = headers;
  return copy;
}
