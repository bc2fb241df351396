import type { MemoryDb } from '../database.js';

/** Where the MCP server's tools run: the repository's memory and the posture the server was started under. */
export interface ToolContext {
  memory: MemoryDb;
  posture: string;
  /** Started inside a sandbox: the memory is a read-only view, and nothing is written (see record_decision). */
  confined: boolean;
  /** Brings the code graph up to date (incrementally; at most every few seconds). */
  refresh(): Promise<void>;
}

/** One MCP tool: its name, description, input schema (JSON Schema), whether it writes, and its handler. */
export interface MemoryTool {
  name: string;
  description: string;
  inputSchema: Record<string, unknown> & { type: 'object' };
  readOnly: boolean;
  /** Returns a JSON-able result, or throws a ToolRefusal whose message the client sees. */
  run(input: Record<string, unknown>, context: ToolContext): unknown;
  /** Reads the code graph: the server brings it up to date first. */
  graph?: true;
}

/** A refusal the client sees as a tool error (`isError`), not a protocol failure. */
export class ToolRefusal extends Error {}
