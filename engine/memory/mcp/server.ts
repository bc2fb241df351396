/**
 * `neo memory mcp`: the repository's memory over MCP (stdio: stdio-server.ts). Read tools never
 * write; `record_decision` validates its input against its schema, stores an agent's report as
 * agent-reported (never a verdict) and is refused under posture plan. Every input is checked
 * against the tool's JSON Schema (ajv) before its handler sees it.
 */
import { createRequire } from 'node:module';
import type { MemoryDb } from '../database.js';
import { indexRepository } from '../graph/index.js';
import { MEMORY_TOOLS } from './tools.js';
import { serveStdio } from './stdio-server.js';
import { ToolRefusal, type MemoryTool, type ToolContext } from './tool.js';

const require = createRequire(import.meta.url);

/** How stale the code graph may be when a graph tool answers. */
const REFRESH_MS = 5000;

/** The server's name and the version it reports. */
export const MCP_SERVER_NAME = 'neo-memory';

type Validate = ((data: unknown) => boolean) & { errors?: Array<{ instancePath: string; message?: string }> | null };

/** Each tool's input check, compiled once. */
export interface Validators {
  get(tool: MemoryTool): Validate;
}

/**
 * Compiles a tool's input schema at its first call: the client waits for the server's start
 * before the agent's first turn, and loading ajv and compiling every schema cost ~0.4 s of CPU
 * under load there, for tools a turn may never call.
 */
export function validators(): Validators {
  let ajv: { compile(schema: object): Validate } | undefined;
  const compiled = new Map<string, Validate>();
  return {
    get(tool) {
      let check = compiled.get(tool.name);
      if (check === undefined) {
        if (ajv === undefined) {
          const Ajv = require('ajv') as { default: new (options: object) => { compile(schema: object): Validate } };
          ajv = new Ajv.default({ allErrors: true, strict: false });
        }
        check = ajv.compile(tool.inputSchema);
        compiled.set(tool.name, check);
      }
      return check;
    },
  };
}

/** The result of one tools/call: JSON text, or a tool error the model reads. */
export async function callTool(
  tools: readonly MemoryTool[],
  checks: Validators,
  context: ToolContext,
  name: string,
  input: unknown,
): Promise<{ content: Array<{ type: 'text'; text: string }>; isError?: boolean }> {
  const tool = tools.find((t) => t.name === name);
  const fail = (text: string) => ({ content: [{ type: 'text' as const, text }], isError: true });
  if (tool === undefined) return fail(`unknown tool \`${name}\` (tools: ${tools.map((t) => t.name).join(', ')})`);
  const args = input ?? {};
  const check = checks.get(tool);
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

/**
 * Serves the repository's memory on stdin/stdout until the client closes the stream. `open`
 * opens it at the first tool call, not before `initialize`: the client waits for this server
 * before the agent's first model request, and loading SQLite and opening the database (~70 ms of
 * CPU) buys nothing for `tools/list`. A memory that cannot be opened is then that call's tool error.
 */
export async function serveMemoryMcp(
  open: () => MemoryDb,
  options: { posture: string; version: string; confined?: boolean },
): Promise<void> {
  const tools = MEMORY_TOOLS;
  const checks = validators();
  let refreshed = 0;
  let refreshing: Promise<void> | undefined;
  const context: ToolContext = {
    get memory() {
      return open();
    },
    posture: options.posture,
    confined: options.confined === true,
    // The graph tools answer from an index at most a few seconds old (an unchanged file costs a stat).
    // (A confined server cannot write the index: it answers from the last one neo made.)
    refresh: () => {
      if (options.confined === true || Date.now() - refreshed < REFRESH_MS) return Promise.resolve();
      const memory = open();
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
  await serveStdio({
    name: MCP_SERVER_NAME,
    version: options.version,
    instructions:
      "neo's memory of this repository: what was tried and what the gate said (search_decisions), and the code graph. Decisions from neo are verdicts it saw; agent-reported ones are not.",
    tools: tools.map((tool) => ({
      name: tool.name,
      description: tool.description,
      inputSchema: tool.inputSchema,
      annotations: { readOnlyHint: tool.readOnly, destructiveHint: false, openWorldHint: false },
    })),
    call: (name, input) => callTool(tools, checks, context, name, input),
  });
}
