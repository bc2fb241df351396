/**
 * One MCP server, connected through the official SDK's Client: started (a process in the
 * session's sandbox, or a remote URL), its tools listed once, each call bounded by the server's
 * timeout and the turn's signal. A server that dies is a tool error for the call it was on and
 * for every later one, never a failure of the session.
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { formatMs } from '../errors.js';
import type { CommandSandbox } from '../tools/shell-env.js';
import { ProcessTransport } from './process-transport.js';
import type { McpServerSpec } from './server-spec.js';
import { StderrLog } from './stderr-log.js';
import { defined } from '../../util/defined.js';

/** Starting a server and listing its tools takes at most this long. */
export const MCP_CONNECT_TIMEOUT_MS = 30_000;

/** A tool as the server listed it. */
export interface ListedTool {
  name: string;
  description?: string;
  inputSchema: Record<string, unknown>;
}

/** What a call returned: its content as text, and whether the server called it an error. */
export interface CallOutcome {
  text: string;
  isError: boolean;
}

export interface ConnectOptions {
  cwd: string;
  sandbox?: CommandSandbox;
  /** Where server logs go (`<sessionDir>/mcp`); absent: kept in memory only. */
  logDir?: string;
  redact: (text: string) => string;
  /** The version neo announces itself with. */
  version: string;
}

export class McpConnection {
  readonly spec: McpServerSpec;
  readonly tools: readonly ListedTool[];
  readonly stderr: StderrLog;
  readonly #client: Client;
  readonly #transport: Transport;
  #gone: string | undefined;

  private constructor(
    spec: McpServerSpec,
    client: Client,
    transport: Transport,
    stderr: StderrLog,
    tools: ListedTool[],
  ) {
    this.spec = spec;
    this.#client = client;
    this.#transport = transport;
    this.stderr = stderr;
    this.tools = tools;
    client.onclose = () => {
      this.#gone ??= this.#exitDescription();
    };
  }

  /** Connects and lists the tools; throws (the server stopped again) with a reason for the record. */
  static async connect(spec: McpServerSpec, options: ConnectOptions): Promise<McpConnection> {
    const sdk = await loadSdk();
    const stderr = new StderrLog(spec.kind === 'stdio' ? options.logDir : undefined, spec.name, options.redact);
    const transport: Transport =
      spec.kind === 'stdio'
        ? new ProcessTransport(
            spec,
            { cwd: options.cwd, ...defined({ sandbox: options.sandbox }) },
            stderr,
            sdk.framing,
          )
        : spec.kind === 'http'
          ? new sdk.StreamableHTTPClientTransport(spec.url, { requestInit: { headers: spec.headers } })
          : new sdk.SSEClientTransport(spec.url, { requestInit: { headers: spec.headers } });
    const client = new sdk.Client({ name: 'neo', version: options.version }, { capabilities: {} });
    const deadline = AbortSignal.timeout(MCP_CONNECT_TIMEOUT_MS);
    try {
      await client.connect(transport, { signal: deadline, timeout: MCP_CONNECT_TIMEOUT_MS });
      const tools: ListedTool[] = [];
      let cursor: string | undefined;
      do {
        const page = await client.listTools(cursor === undefined ? {} : { cursor }, {
          signal: deadline,
          timeout: MCP_CONNECT_TIMEOUT_MS,
        });
        for (const tool of page.tools)
          tools.push({
            name: tool.name,
            ...defined({ description: tool.description }),
            inputSchema: tool.inputSchema as Record<string, unknown>,
          });
        cursor = page.nextCursor;
      } while (cursor !== undefined);
      return new McpConnection(spec, client, transport, stderr, tools);
    } catch (error) {
      await client.close().catch(() => undefined);
      await transport.close().catch(() => undefined);
      const tail = stderr.tail();
      throw new Error(
        `${failureText(error, MCP_CONNECT_TIMEOUT_MS)}${tail === '' ? '' : ` (stderr: ${lastLine(tail)})`}`,
      );
    }
  }

  /** Calls one tool; every failure (a timeout, a dead server, the turn's abort) comes back as an error outcome. */
  async call(tool: string, input: Record<string, unknown>, signal: AbortSignal): Promise<CallOutcome> {
    if (this.#gone !== undefined) return { text: `mcp server ${this.spec.name} ${this.#gone}`, isError: true };
    try {
      const result = await this.#client.callTool({ name: tool, arguments: input }, undefined, {
        signal,
        timeout: this.spec.callTimeoutMs,
      });
      return { text: contentText(result.content), isError: result.isError === true };
    } catch (error) {
      if (signal.aborted) throw error;
      if (this.#gone !== undefined || this.#exited()) {
        this.#gone ??= this.#exitDescription();
        const tail = this.stderr.tail();
        return {
          text: `mcp server ${this.spec.name} ${this.#gone} during the call to ${tool}${tail === '' ? '' : `; its last stderr:\n${tail}`}`,
          isError: true,
        };
      }
      return {
        text: `${tool} on mcp server ${this.spec.name}: ${failureText(error, this.spec.callTimeoutMs)}`,
        isError: true,
      };
    }
  }

  /** Closes the conversation and stops the server (its whole process tree). */
  async close(): Promise<void> {
    this.#gone ??= 'was stopped with the session';
    await this.#client.close().catch(() => undefined);
    await this.#transport.close().catch(() => undefined);
  }

  #exited(): boolean {
    return this.#transport instanceof ProcessTransport && this.#transport.ended !== undefined;
  }

  #exitDescription(): string {
    const ended = this.#transport instanceof ProcessTransport ? this.#transport.ended : undefined;
    if (ended === undefined) return 'closed the connection';
    if (ended.signal !== undefined) return `was killed by ${ended.signal}`;
    return `exited with code ${ended.exitCode ?? '?'}`;
  }
}

async function loadSdk() {
  const [client, http, sse, framing] = await Promise.all([
    import('@modelcontextprotocol/sdk/client/index.js'),
    import('@modelcontextprotocol/sdk/client/streamableHttp.js'),
    import('@modelcontextprotocol/sdk/client/sse.js'),
    import('@modelcontextprotocol/sdk/shared/stdio.js'),
  ]);
  return {
    Client: client.Client,
    StreamableHTTPClientTransport: http.StreamableHTTPClientTransport,
    SSEClientTransport: sse.SSEClientTransport,
    framing,
  };
}

/** A result's content as the model reads it: text as is, anything else named. */
function contentText(content: unknown): string {
  if (!Array.isArray(content)) return '';
  return content
    .map((part: Record<string, unknown>) => {
      if (part.type === 'text' && typeof part.text === 'string') return part.text;
      if (part.type === 'resource' && typeof part.resource === 'object' && part.resource !== null) {
        const resource = part.resource as Record<string, unknown>;
        return typeof resource.text === 'string' ? resource.text : `[resource ${String(resource.uri)}]`;
      }
      if (part.type === 'resource_link') return `[resource ${String(part.uri)}]`;
      return `[${String(part.type)} content${typeof part.mimeType === 'string' ? ` (${part.mimeType})` : ''}]`;
    })
    .join('\n');
}

/** The SDK's timeout error says "Request timed out"; neo says after how long and what to change. */
function failureText(error: unknown, timeoutMs: number): string {
  const message = error instanceof Error ? error.message : String(error);
  if (/timed out|RequestTimeout|-32001|TimeoutError|aborted due to timeout/i.test(message))
    return `timed out after ${formatMs(timeoutMs)} (raise the server's \`timeout\` if the tool is slow)`;
  return message;
}

function lastLine(text: string): string {
  const lines = text.trim().split('\n');
  return lines[lines.length - 1] ?? '';
}
