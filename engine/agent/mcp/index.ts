/**
 * neo's own agent as an MCP client: the servers a session starts with become tools named
 * `mcp__<server>__<tool>` (Claude Code's and Codex's spelling, so persona rules and records
 * read the same on every backend), with the schemas the servers list. A tool is a command to
 * the posture gate (effect `exec`) unless the server's configuration declares it read-only; a
 * server's own annotations are its word and never lower that.
 */
import type { AgentTool } from '../tool.js';
import type { CommandSandbox } from '../tools/shell-env.js';
import { McpConnection, type ConnectOptions, type ListedTool } from './connection.js';
import { isReadOnly, readServerSpecs, type McpServerSpec } from './server-spec.js';
import { defined } from '../../util/defined.js';
import { redactor, type SecretValue } from '../../util/redact.js';

export { DEFAULT_MCP_CALL_TIMEOUT_MS, readServerSpecs, type McpServerSpec } from './server-spec.js';
export { STDERR_LOG_MAX_BYTES } from './stderr-log.js';
export { MCP_CONNECT_TIMEOUT_MS } from './connection.js';

/** What became of one configured server, for the session's record. */
export type McpServerReport =
  | {
      server: string;
      status: 'connected';
      transport: 'stdio' | 'http' | 'sse';
      tools: string[];
      readOnlyTools: string[];
    }
  | { server: string; status: 'ignored'; reason: string };

export interface McpSetup {
  tools: AgentTool[];
  /** The values servers' `${NAME}` references read: the session redacts them like its own keys. */
  secrets: SecretValue[];
  servers: McpServerReport[];
  /** Stops every server (idempotent). */
  close(): Promise<void>;
}

export interface McpSetupOptions extends Omit<ConnectOptions, 'sandbox'> {
  /** The session's environment, which `${NAME}` references in a server's env and headers read. */
  env: NodeJS.ProcessEnv;
  sandbox?: CommandSandbox;
}

/** Provider limit on tool names (Anthropic and OpenAI both cap at 64). */
const MAX_TOOL_NAME = 64;

/** Connects every server at once; one that fails is reported as ignored, with why. */
export async function connectMcpServers(
  servers: Readonly<Record<string, unknown>>,
  options: McpSetupOptions,
): Promise<McpSetup> {
  const { specs, ignored, secrets } = readServerSpecs(servers, options.env);
  const own = redactor(secrets);
  const reports: McpServerReport[] = ignored.map((i) => ({ server: i.name, status: 'ignored', reason: i.reason }));
  const connections: McpConnection[] = [];
  const tools: AgentTool[] = [];
  const connectOptions: ConnectOptions = {
    cwd: options.cwd,
    redact: (text) => own(options.redact(text)),
    version: options.version,
    ...defined({ logDir: options.logDir, sandbox: options.sandbox }),
  };
  const results = await Promise.all(
    specs.map(async (spec) => {
      const remote = remoteProblem(spec, options.sandbox);
      if (remote !== undefined) return { spec, error: remote };
      try {
        return { spec, connection: await McpConnection.connect(spec, connectOptions) };
      } catch (error) {
        return { spec, error: `it did not start: ${error instanceof Error ? error.message : String(error)}` };
      }
    }),
  );
  const taken = new Set<string>();
  for (const result of results) {
    if (result.connection === undefined) {
      reports.push({ server: result.spec.name, status: 'ignored', reason: result.error ?? 'it did not start' });
      continue;
    }
    const connection = result.connection;
    connections.push(connection);
    const usable: Array<{ tool: ListedTool; name: string }> = [];
    const skipped: string[] = [];
    for (const tool of connection.tools) {
      const name = toolName(connection.spec.name, tool.name);
      // Two servers can spell one name (`a__b` + `c`, `a` + `b__c`): the first keeps it.
      if (name === undefined || taken.has(name)) skipped.push(tool.name);
      else usable.push({ tool, name });
      if (name !== undefined) taken.add(name);
    }
    for (const { tool, name } of usable) tools.push(mcpTool(connection, tool, name));
    reports.push({
      server: connection.spec.name,
      status: 'connected',
      transport: connection.spec.kind,
      tools: usable.map((n) => n.name),
      readOnlyTools: usable.filter((n) => isReadOnly(connection.spec, n.tool.name)).map((n) => n.name),
      ...(skipped.length > 0 ? { ignoredTools: skipped } : {}),
    });
  }
  reports.sort((a, b) => a.server.localeCompare(b.server));
  let closing: Promise<void> | undefined;
  return {
    tools,
    secrets,
    servers: reports,
    close: () => (closing ??= Promise.all(connections.map((c) => c.close())).then(() => undefined)),
  };
}

/** A remote server is reached by neo itself, so a session confined without network gets none. */
function remoteProblem(spec: McpServerSpec, sandbox: CommandSandbox | undefined): string | undefined {
  if (spec.kind === 'stdio') return undefined;
  if (sandbox !== undefined && sandbox.kind !== 'none' && !sandbox.network)
    return `it is a remote (${spec.kind}) server and the session's sandbox has no network`;
  return undefined;
}

/** `mcp__<server>__<tool>`, or undefined when the tool's own name cannot be part of one. */
function toolName(server: string, tool: string): string | undefined {
  const name = `mcp__${server}__${tool}`;
  return /^[A-Za-z0-9_-]+$/.test(tool) && name.length <= MAX_TOOL_NAME ? name : undefined;
}

function mcpTool(connection: McpConnection, tool: ListedTool, name: string): AgentTool {
  const readOnly = isReadOnly(connection.spec, tool.name);
  return {
    effect: readOnly ? 'read' : 'exec',
    spec: {
      name,
      description: `${tool.description ?? tool.name} (tool ${tool.name} of MCP server ${connection.spec.name})`,
      inputSchema: { type: 'object', ...tool.inputSchema },
    },
    async run(input, context) {
      const outcome = await connection.call(tool.name, input, context.signal);
      return { output: outcome.text, isError: outcome.isError };
    },
  };
}
