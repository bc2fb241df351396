/**
 * The SDK's stdio transport, over a process neo starts itself: in the session's sandbox, as its
 * own process group, recorded in the live registry (so a neo killed with -9 has it swept by the
 * next one) and killed as a tree when the session stops. The SDK's own StdioClientTransport
 * spawns with cross-spawn and knows neither the sandbox nor the registry, hence this one.
 */
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import type { ProcessResult, RunningProcess } from '../../execution/index.js';
import { spawnCommand, type CommandSandbox } from '../tools/shell-env.js';
import type { StderrLog } from './stderr-log.js';
import type { StdioServerSpec } from './server-spec.js';
import { defined } from '../../util/defined.js';

/** The SDK's line framing, loaded with the SDK (never on the startup path of a session without MCP). */
type Framing = typeof import('@modelcontextprotocol/sdk/shared/stdio.js');

export class ProcessTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: <T extends JSONRPCMessage>(message: T) => void;
  readonly #spec: StdioServerSpec;
  readonly #where: { cwd: string; sandbox?: CommandSandbox };
  readonly #stderr: StderrLog;
  readonly #framing: Framing;
  #process: RunningProcess | undefined;
  #ended: ProcessResult | undefined;
  #closed = false;

  constructor(
    spec: StdioServerSpec,
    where: { cwd: string; sandbox?: CommandSandbox },
    stderr: StderrLog,
    framing: Framing,
  ) {
    this.#spec = spec;
    this.#where = where;
    this.#stderr = stderr;
    this.#framing = framing;
  }

  /** How the process ended, once it has. */
  get ended(): ProcessResult | undefined {
    return this.#ended;
  }

  async start(): Promise<void> {
    const spec = this.#spec;
    const running = spawnCommand(
      [spec.command, ...spec.args],
      { cwd: this.#where.cwd, env: spec.env, ...defined({ sandbox: this.#where.sandbox }) },
      { stdin: 'pipe', output: 'stream', label: `mcp server ${spec.name}` },
    );
    this.#process = running;
    const buffer = new this.#framing.ReadBuffer();
    running.stdout?.on('data', (chunk: Buffer) => {
      buffer.append(chunk);
      for (;;) {
        let message: JSONRPCMessage | null;
        try {
          message = buffer.readMessage();
        } catch (error) {
          // A line that is not JSON-RPC (a server printing to stdout) is reported, then skipped.
          this.onerror?.(error as Error);
          continue;
        }
        if (message === null) break;
        this.onmessage?.(message);
      }
    });
    running.stderr?.setEncoding('utf8');
    running.stderr?.on('data', (chunk: string) => this.#stderr.push(chunk));
    void running.result.then((result) => {
      this.#ended = result;
      this.#stderr.close();
      this.#finish();
    });
    if (running.pid === undefined) {
      const result = await running.result;
      throw new Error(`could not start \`${spec.command}\`: ${result.spawnError ?? 'unknown error'}`);
    }
  }

  send(message: JSONRPCMessage): Promise<void> {
    const stdin = this.#process?.stdin;
    if (stdin === null || stdin === undefined || this.#ended !== undefined || this.#closed)
      return Promise.reject(new Error(`mcp server ${this.#spec.name} is not running`));
    return new Promise((resolve) => {
      if (stdin.write(this.#framing.serializeMessage(message))) resolve();
      else stdin.once('drain', resolve);
    });
  }

  /** Ends the conversation and kills the server's whole tree (a short grace: it has nothing to save). */
  async close(): Promise<void> {
    const running = this.#process;
    if (running === undefined) return this.#finish();
    running.stdin?.end();
    await running.kill(500);
    this.#finish();
  }

  #finish(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.onclose?.();
  }
}
