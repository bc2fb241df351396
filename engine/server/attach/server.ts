/**
 * The server side of the attach socket: one connection per flow or persona process. It learns
 * which sessions and runs each process holds from what the process streams, hands the streams
 * to the bridge, the flow feed and the metrics sink, and sends a person's commands to the
 * process that holds their target.
 */
import { chmod, rm } from 'node:fs/promises';
import { createServer, type Server, type Socket } from 'node:net';
import type { MetricsSink } from '../../observability/index.js';
import { decodeError, type SessionLiveEvent, type SessionLog } from '../../session/index.js';
import { lineReader } from '../../util/lines.js';
import { HttpError } from '../envelope.js';
import type { AttachCommand, DownMessage, FlowReport, UpMessage } from './protocol.js';

/** How long a command may wait for the process's answer. */
const COMMAND_TIMEOUT_MS = 30_000;

export interface AttachedProcess {
  pid: number;
  label: string;
  sessions: ReadonlySet<string>;
  runs: ReadonlySet<string>;
  send(command: AttachCommand): Promise<unknown>;
}

export interface AttachHandlers {
  session(live: SessionLiveEvent): void;
  flow(report: FlowReport, from: AttachedProcess): void;
  metrics: MetricsSink;
  /** A process hung up: its sessions and runs are no longer reachable. */
  detached(process: AttachedProcess): void;
  log: SessionLog;
}

export interface AttachServer {
  ownerOfSession(sessionId: string): AttachedProcess | undefined;
  ownerOfRun(runId: string): AttachedProcess | undefined;
  processes(): AttachedProcess[];
  close(): Promise<void>;
}

export async function listenForAttach(path: string, handlers: AttachHandlers): Promise<AttachServer> {
  const connections = new Map<Socket, Connection>();
  const server: Server = createServer((socket) => {
    const connection = new Connection(socket, handlers);
    connections.set(socket, connection);
    socket.on('close', () => {
      connections.delete(socket);
      connection.closed();
    });
  });
  await rm(path, { force: true });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(path, () => {
      server.off('error', reject);
      resolve();
    });
  });
  await chmod(path, 0o600);
  const all = () => [...connections.values()];
  return {
    ownerOfSession: (id) => all().find((c) => c.sessions.has(id)),
    ownerOfRun: (id) => all().find((c) => c.runs.has(id)),
    processes: all,
    async close() {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        for (const socket of connections.keys()) socket.destroy();
      });
      await rm(path, { force: true });
    },
  };
}

class Connection implements AttachedProcess {
  pid = 0;
  label = '';
  readonly sessions = new Set<string>();
  readonly runs = new Set<string>();
  readonly #socket: Socket;
  readonly #handlers: AttachHandlers;
  readonly #pending = new Map<number, { resolve: (value: unknown) => void; reject: (error: unknown) => void }>();
  #nextId = 1;

  constructor(socket: Socket, handlers: AttachHandlers) {
    this.#socket = socket;
    this.#handlers = handlers;
    socket.on('error', () => socket.destroy());
    socket.on(
      'data',
      lineReader((line) => {
        let message: UpMessage;
        try {
          message = JSON.parse(line) as UpMessage;
        } catch {
          handlers.log.warn('serve_attach_bad_line', { pid: this.pid });
          return;
        }
        this.#receive(message);
      }),
    );
  }

  send(command: AttachCommand): Promise<unknown> {
    const id = this.#nextId++;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.#pending.delete(id);
        reject(
          new HttpError(
            504,
            'SERVER_PROCESS_SLOW',
            `process ${this.pid} did not answer within ${COMMAND_TIMEOUT_MS / 1000}s`,
          ),
        );
      }, COMMAND_TIMEOUT_MS);
      this.#pending.set(id, {
        resolve: (value) => (clearTimeout(timer), resolve(value)),
        reject: (error) => (clearTimeout(timer), reject(error)),
      });
      const message: DownMessage = { kind: 'command', id, command };
      this.#socket.write(`${JSON.stringify(message)}\n`);
    });
  }

  closed(): void {
    for (const waiter of this.#pending.values())
      waiter.reject(new HttpError(409, 'SESSION_NOT_LIVE', `process ${this.pid} went away before it answered`));
    this.#pending.clear();
    this.#handlers.detached(this);
  }

  #receive(message: UpMessage): void {
    switch (message.kind) {
      case 'hello':
        this.pid = message.pid;
        this.label = message.label;
        this.#handlers.log.info('serve_process_attached', { pid: message.pid, label: message.label });
        return;
      case 'holds':
        // A process that outlived the server it first attached to: what it holds is steerable again.
        for (const sessionId of message.sessions) this.sessions.add(sessionId);
        for (const { runId, resumed } of message.runs) {
          this.runs.add(runId);
          this.#handlers.flow({ type: 'run', runId, resumed }, this);
        }
        this.#handlers.log.info('serve_process_reattached', {
          pid: this.pid,
          sessions: message.sessions.length,
          runs: message.runs.length,
        });
        return;
      case 'session': {
        const { live } = message;
        if (live.event.type === 'created' || live.event.type === 'adopted') this.sessions.add(live.sessionId);
        if (live.event.type === 'released') this.sessions.delete(live.sessionId);
        this.#handlers.session(live);
        return;
      }
      case 'flow':
        if (message.report.type === 'run') this.runs.add(message.report.runId);
        if (message.report.type === 'settled') this.runs.delete(message.report.runId);
        this.#handlers.flow(message.report, this);
        return;
      case 'metric':
        if (message.op === 'increment') this.#handlers.metrics.increment(message.name, message.labels, message.value);
        else this.#handlers.metrics.observe(message.name, message.value ?? Number.NaN, message.labels);
        return;
      case 'reply': {
        const waiter = this.#pending.get(message.id);
        this.#pending.delete(message.id);
        if (message.ok) waiter?.resolve(message.result);
        else waiter?.reject(decodeError(message.error));
      }
    }
  }
}
