/**
 * `neo memory mcp`: the repository's memory over MCP (stdio), with the official SDK. Read tools
 * never write; `record_decision` validates its input against its schema, stores an agent's report
 * as agent-reported (never a verdict) and is refused under posture plan. Every input is checked
 * against the tool's JSON Schema (ajv) before its handler sees it.
 */
import { createRequire } from 'node:module';
import type { MemoryDb } from '../database.js';
import { indexRepository } from '../graph/index.js';
import { MEMORY_TOOLS } from './tools.js';
import { ToolRefusal, type MemoryTool, type ToolContext } from './tool.js';

const require = createRequire(import.meta.url);

/** How stale the code graph may be when a graph tool answers. */
const REFRESH_MS = 5000;

/** The server's name and the version it reports. */
export const MCP_SERVER_NAME = 'neo-memory';

type Validate = ((data: unknown) => boolean) & { errors?: Array<{ instancePath: string; message?: string }> | null };

/** Compiles each tool's input schema once. */
function validators(tools: readonly MemoryTool[]): Map<string, Validate> {
  const Ajv = require('ajv') as { default: new (options: object) => { compile(schema: object): Validate } };
  const ajv = new Ajv.default({ allErrors: true, strict: false });
  return new Map(tools.map((tool) => [tool.name, ajv.compile(tool.inputSchema)]));
}

/** The result of one tools/call: JSON text, or a tool error the model reads. */
export async function callTool(
  tools: readonly MemoryTool[],
  checks: Map<string, Validate>,
  context: ToolContext,
  name: string,
  input: unknown,
): Promise<{ content: Array<{ type: 'text'; text: string }>; isError?: boolean }> {
  const tool = tools.find((t) => t.name === name);
  const fail = (text: string) => ({ content: [{ type: 'text' as const, text }], isError: true });
  if (tool === undefined) return fail(`unknown tool \`${name}\` (tools: ${tools.map((t) => t.name).join(', ')})`);
  const args = input ?? {};
  const check = checks.get(name)!;
  if (!check(args)) {
    const problems = (check.errors ?? []).map((e) => `${e.instancePath || '(input)'} ${e.message ?? 'is invalid'}`);
    return fail(`invalid input for ${name}: ${problems.join('; ')}`);
  }
  try {
    if (tool.graph === true) await context.refresh();
    return { content: [{ type: 'text', text: JSON.stringify(tool.run(args as Record<string, unknown>, context)) }] };
  } catch (error) {
    if (error instanceof ToolRefusal) return fail(error.message);
    return fail(`${name} failed: ${error instanceof Error ? error.message : String(error)}`);
  }
}

/** Serves the memory of `memory.repoRoot` on stdin/stdout until the client closes the stream. */
export async function serveMemoryMcp(
  memory: MemoryDb,
  options: { posture: string; version: string; confined?: boolean },
): Promise<void> {
  const [{ Server }, { StdioServerTransport }, { CallToolRequestSchema, ListToolsRequestSchema }] = await Promise.all([
    import('@modelcontextprotocol/sdk/server/index.js'),
    import('@modelcontextprotocol/sdk/server/stdio.js'),
    import('@modelcontextprotocol/sdk/types.js'),
  ]);
  const tools = MEMORY_TOOLS;
  const checks = validators(tools);
  let refreshed = 0;
  let refreshing: Promise<void> | undefined;
  const context: ToolContext = {
    memory,
    posture: options.posture,
    confined: options.confined === true,
    // The graph tools answer from an index at most a few seconds old (an unchanged file costs a stat).
    // (A confined server cannot write the index: it answers from the last one neo made.)
    refresh: () => {
      if (options.confined === true || Date.now() - refreshed < REFRESH_MS) return Promise.resolve();
      refreshing ??= indexRepository(memory.db, memory.repoRoot)
        .then(() => {
          refreshed = Date.now();
        })
        .finally(() => {
          refreshing = undefined;
        });
      return refreshing;
    },
  };
  const server = new Server(
    { name: MCP_SERVER_NAME, version: options.version },
    {
      capabilities: { tools: {} },
      instructions:
        "neo's memory of this repository: what was tried and what the gate said (search_decisions), and the code graph. Decisions from neo are verdicts it saw; agent-reported ones are not.",
    },
  );
  server.setRequestHandler(ListToolsRequestSchema, () => ({
    tools: tools.map((tool) => ({
      name: tool.name,
      description: tool.description,
      inputSchema: tool.inputSchema,
      annotations: { readOnlyHint: tool.readOnly, destructiveHint: false, openWorldHint: false },
    })),
  }));
  server.setRequestHandler(CallToolRequestSchema, (request) =>
    callTool(tools, checks, context, request.params.name, request.params.arguments),
  );
  const transport = new StdioServerTransport();
  const closed = new Promise<void>((resolve) => {
    server.onclose = () => resolve();
    process.stdin.once('end', () => resolve());
  });
  await server.connect(transport);
  await closed;
  await server.close();
}
