/**
 * The slice of MCP a tools-only server speaks over stdio: newline-delimited JSON-RPC 2.0 with
 * `initialize`, `ping`, `tools/list` and `tools/call` (every notification is read and ignored).
 *
 * Why not the official SDK's Server: a coding CLI starts its MCP servers before the agent's first
 * model request and waits for their `initialize` and `tools/list`, so this server's start-up is
 * paid by every agent turn neo provisions it into. Importing the SDK's server (its zod schemas of
 * the whole protocol) cost ~1 s of CPU under load, more than the rest of `neo memory mcp`
 * (docs/architecture.md, issue 29's CLI-turn notes). The SDK's client still drives this server in
 * the tests (tests/e2e/memory-mcp.test.ts), so the two stay wire-compatible.
 */
import { createInterface } from 'node:readline';

/**
 * The protocol versions this server answers with (the SDK 1.32's list): a client asking for one
 * of them gets it back, any other client the newest, as the SDK's server does.
 */
const PROTOCOL_VERSIONS = ['2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05', '2024-10-07'];

/** A line of JSON-RPC longer than this is refused and dropped (the SDK's read buffer bound). */
const MAX_LINE_CHARS = 10 * 1024 * 1024;

/** JSON-RPC's error codes. */
const PARSE_ERROR = -32700;
const INVALID_REQUEST = -32600;
const METHOD_NOT_FOUND = -32601;
const INVALID_PARAMS = -32602;
const INTERNAL_ERROR = -32603;

/** One tool as tools/list announces it. */
export interface ListedTool {
  name: string;
  description: string;
  inputSchema: Record<string, unknown>;
  annotations?: Record<string, unknown>;
}

/** A tools/call result: the content the model reads, and whether it is a tool error. */
export interface CallResult {
  content: Array<{ type: 'text'; text: string }>;
  isError?: boolean;
}

export interface StdioToolServer {
  name: string;
  version: string;
  instructions?: string;
  tools: readonly ListedTool[];
  call(name: string, input: unknown): Promise<CallResult>;
}

type Id = string | number;

class RpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
  }
}

/** Serves `server` on `input`/`output` until `input` ends; calls still running then are answered first. */
export async function serveStdio(
  server: StdioToolServer,
  input: NodeJS.ReadableStream = process.stdin,
  output: NodeJS.WritableStream = process.stdout,
): Promise<void> {
  const send = (message: Record<string, unknown>) => {
    output.write(`${JSON.stringify({ jsonrpc: '2.0', ...message })}\n`);
  };
  const running = new Set<Promise<void>>();
  const lines = createInterface({ input, crlfDelay: Infinity });
  for await (const line of lines) {
    if (line.trim() === '') continue;
    if (line.length > MAX_LINE_CHARS) {
      send({ id: null, error: { code: INVALID_REQUEST, message: `message longer than ${MAX_LINE_CHARS} characters` } });
      continue;
    }
    let message: unknown;
    try {
      message = JSON.parse(line);
    } catch {
      send({ id: null, error: { code: PARSE_ERROR, message: 'Parse error: not JSON' } });
      continue;
    }
    const request = requestOf(message);
    // A notification, or a response to a request this server never sends: nothing to answer.
    if (request === undefined) continue;
    if ('invalid' in request) {
      send({ id: request.id, error: { code: INVALID_REQUEST, message: request.invalid } });
      continue;
    }
    const answered = answer(server, request.method, request.params).then(
      (result) => send({ id: request.id, result }),
      (error: unknown) =>
        send({
          id: request.id,
          error:
            error instanceof RpcError
              ? { code: error.code, message: error.message }
              : { code: INTERNAL_ERROR, message: error instanceof Error ? error.message : String(error) },
        }),
    );
    running.add(answered);
    void answered.finally(() => running.delete(answered));
  }
  await Promise.all(running);
}

/** The request a message is, undefined for a notification or a response, or why it is no request. */
function requestOf(
  message: unknown,
): { id: Id; method: string; params: Record<string, unknown> } | { id: Id | null; invalid: string } | undefined {
  if (typeof message !== 'object' || message === null || Array.isArray(message))
    return { id: null, invalid: 'Invalid Request: not a JSON-RPC object' };
  const m = message as Record<string, unknown>;
  const id = typeof m.id === 'string' || typeof m.id === 'number' ? m.id : undefined;
  if (typeof m.method !== 'string') return id === undefined || 'result' in m || 'error' in m ? undefined : invalid(id);
  if (id === undefined) return undefined;
  if (m.jsonrpc !== '2.0') return { id, invalid: 'Invalid Request: jsonrpc must be "2.0"' };
  const params = m.params ?? {};
  if (typeof params !== 'object' || params === null || Array.isArray(params))
    return { id, invalid: 'Invalid Request: params must be an object' };
  return { id, method: m.method, params: params as Record<string, unknown> };
}

function invalid(id: Id): { id: Id; invalid: string } {
  return { id, invalid: 'Invalid Request: no method' };
}

async function answer(server: StdioToolServer, method: string, params: Record<string, unknown>): Promise<unknown> {
  switch (method) {
    case 'initialize': {
      const asked = params.protocolVersion;
      const protocolVersion =
        typeof asked === 'string' && PROTOCOL_VERSIONS.includes(asked) ? asked : PROTOCOL_VERSIONS[0];
      return {
        protocolVersion,
        capabilities: { tools: {} },
        serverInfo: { name: server.name, version: server.version },
        ...(server.instructions === undefined ? {} : { instructions: server.instructions }),
      };
    }
    case 'ping':
      return {};
    case 'tools/list':
      return { tools: server.tools };
    case 'tools/call': {
      if (typeof params.name !== 'string')
        throw new RpcError(INVALID_PARAMS, 'Invalid params: tools/call needs a name');
      return server.call(params.name, params.arguments);
    }
    default:
      throw new RpcError(METHOD_NOT_FOUND, `Method not found: ${method}`);
  }
}
