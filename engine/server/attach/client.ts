/**
 * The process side of the attach socket. A flow or persona run checks for `neo serve`'s socket
 * (one stat, no import of the server) and, when one answers, streams its sessions' events, its
 * flow observations and its metrics up, and runs the commands a person sends down. No server
 * → nothing changes: the run works exactly as without one.
 */
import { existsSync } from 'node:fs';
import { createConnection, type Socket } from 'node:net';
import type { FlowObservation } from '../../flow/index.js';
import type { MetricsSink } from '../../observability/index.js';
import type { SessionLiveEvent } from '../../session/index.js';
import { NeoError } from '../../util/errors.js';
import { lineReader } from '../../util/lines.js';
import { socketHint, socketProblem } from '../../util/private-socket.js';
import { serverPaths } from '../paths.js';
import { runPersonCommand, type PersonPort } from '../person-ops.js';
import type { DownMessage, UpMessage } from './protocol.js';
import { defined } from '../../util/defined.js';
import { processRedact, redactDeep } from '../../util/redact.js';

/** A service whose sessions a person may reach through the server. */
export type AttachableService = PersonPort & {
  onSessionEvent(listener: (event: SessionLiveEvent) => void): () => void;
};

export interface ServerAttachment {
  /** Forwards every record to the server's /metrics. */
  readonly metrics: MetricsSink;
  /** Streams this service's session events up and lets the server's commands reach its sessions. */
  bindSessions(service: AttachableService): void;
  /** Forwards one flow observation (the run, its events, its progress). */
  observeFlow(observation: FlowObservation): void;
  /** What to do when a person cancels a run this process drives. */
  onCancel(handler: (runId: string) => void): void;
  /** Sends what is queued and hangs up. */
  close(): Promise<void>;
}

/** Attaches to the `neo serve` of `home`; undefined when none runs. */
export async function attachToServer(home: string, label: string): Promise<ServerAttachment | undefined> {
  const path = serverPaths(home).attachSocket;
  if (!existsSync(path)) return undefined;
  // Never stream a run's briefs and events to a socket another user could own.
  const unsafe = await socketProblem(path);
  if (unsafe !== undefined) throw unsafeAttachSocket(path, unsafe);
  const socket = await new Promise<Socket | undefined>((resolve) => {
    const s = createConnection(path);
    s.once('connect', () => resolve(s));
    s.once('error', () => resolve(undefined));
  });
  if (socket === undefined) return undefined;
  return new Attachment(socket, label, path);
}

/** How often a process whose server went away looks for it again. */
const REATTACH_MS = 500;

/** Connects to the attach socket at `path` (when it is this user's alone); undefined when nothing answers. */
async function connect(path: string): Promise<Socket | undefined> {
  if (!existsSync(path) || (await socketProblem(path)) !== undefined) return undefined;
  return new Promise<Socket | undefined>((resolve) => {
    const s = createConnection(path);
    s.once('connect', () => resolve(s));
    s.once('error', () => resolve(undefined));
  });
}

/** `SERVER_UNSAFE_SOCKET`: the attach socket's folder or file is not this user's alone. */
export function unsafeAttachSocket(socket: string, problem: string): NeoError {
  return new NeoError(
    'SERVER_UNSAFE_SOCKET',
    `neo serve's attach socket is unsafe: ${problem}: neo will not talk through it`,
    {
      hint: socketHint(socket),
    },
  );
}

/**
 * One process's attachment. When the server goes away (a restart, a `kill -9`) the run goes on
 * and the attachment looks for the server again every {@link REATTACH_MS}; once one answers it
 * says hello again and tells it what it holds — its live sessions and the runs it drives — so
 * a restarted server streams and steers them as before.
 */
class Attachment implements ServerAttachment {
  #socket: Socket;
  readonly #path: string;
  readonly #label: string;
  readonly #services: AttachableService[] = [];
  readonly #unsubscribe: Array<() => void> = [];
  /** Sessions this process holds (from its own events), and the runs it drives. */
  readonly #sessions = new Set<string>();
  readonly #runs = new Map<string, boolean>();
  #cancel: ((runId: string) => void) | undefined;
  #open = true;
  #closed = false;
  #retry: NodeJS.Timeout | undefined;
  readonly metrics: MetricsSink;

  constructor(socket: Socket, label: string, path: string) {
    this.#socket = socket;
    this.#path = path;
    this.#label = label;
    this.#adopt(socket);
    this.metrics = {
      increment: (name, labels, value) =>
        this.#send({
          kind: 'metric',
          op: 'increment',
          name,
          ...defined({ labels, value }),
        }),
      observe: (name, value, labels) =>
        this.#send({ kind: 'metric', op: 'observe', name, value, ...defined({ labels }) }),
    };
  }

  bindSessions(service: AttachableService): void {
    this.#services.push(service);
    this.#unsubscribe.push(
      service.onSessionEvent((live) => {
        if (live.event.type === 'created' || live.event.type === 'adopted') this.#sessions.add(live.sessionId);
        if (live.event.type === 'released') this.#sessions.delete(live.sessionId);
        this.#send({ kind: 'session', live });
      }),
    );
  }

  observeFlow(observation: FlowObservation): void {
    const { runId } = observation;
    if (observation.type === 'run') {
      this.#runs.set(runId, observation.resumed);
      this.#send({ kind: 'flow', report: { type: 'run', runId, resumed: observation.resumed } });
    } else if (observation.type === 'event') {
      this.#send({ kind: 'flow', report: { type: 'event', runId, event: observation.event } });
      if (observation.event.type === 'run.finished' || observation.event.type === 'run.interrupted') {
        this.#runs.delete(runId);
        this.#send({ kind: 'flow', report: { type: 'settled', runId } });
      }
    } else if (observation.type === 'progress') {
      const p = observation.progress;
      this.#send({
        kind: 'flow',
        report: {
          type: 'progress',
          runId,
          progress: {
            step: p.step,
            ...defined({
              item: p.item,
              round: p.round,
              tool: p.tool,
              costUsd: p.costUsd,
              note: p.note,
              sessionId: p.sessionId,
            }),
          },
        },
      });
    }
  }

  onCancel(handler: (runId: string) => void): void {
    this.#cancel = handler;
  }

  async close(): Promise<void> {
    this.#closed = true;
    clearTimeout(this.#retry);
    for (const stop of this.#unsubscribe) stop();
    if (!this.#open) return;
    this.#open = false;
    // Held (ref'd) while the last lines drain: an unref'd wait would let the event loop empty
    // under a command that is still finishing.
    this.#socket.ref();
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, 1000);
      this.#socket.once('close', () => {
        clearTimeout(timer);
        resolve();
      });
      this.#socket.end();
    });
    this.#socket.destroy();
  }

  /** Takes `socket` as the line to the server: hello, then what this process holds. */
  #adopt(socket: Socket): void {
    this.#socket = socket;
    this.#open = true;
    // The server going away never breaks the run: writes stop, nothing throws, and it is looked for again.
    const lost = () => {
      if (this.#socket !== socket) return;
      this.#open = false;
      this.#reattachLater();
    };
    socket.on('error', lost);
    socket.on('close', lost);
    socket.on(
      'data',
      lineReader((line) => void this.#command(line)),
    );
    // The attachment must never keep the process alive on its own.
    socket.unref();
    this.#send({ kind: 'hello', pid: process.pid, label: this.#label });
    if (this.#sessions.size > 0 || this.#runs.size > 0)
      this.#send({
        kind: 'holds',
        sessions: [...this.#sessions],
        runs: [...this.#runs].map(([runId, resumed]) => ({ runId, resumed })),
      });
  }

  #reattachLater(): void {
    if (this.#closed || this.#retry !== undefined) return;
    this.#retry = setTimeout(() => {
      this.#retry = undefined;
      void connect(this.#path).then((socket) => {
        if (this.#closed) socket?.destroy();
        else if (socket === undefined) this.#reattachLater();
        else this.#adopt(socket);
      });
    }, REATTACH_MS);
    this.#retry.unref();
  }

  #send(message: UpMessage): void {
    if (!this.#open) return;
    // This process knows its own secrets (the server may not): none leaves it for the web UI.
    this.#socket.write(`${JSON.stringify(redactDeep(message, processRedact()))}\n`);
  }

  async #command(line: string): Promise<void> {
    // Loaded here, not at the top: a run that attaches but is never steered does not pay for it.
    const { encodeError, SessionRejection } = await import('../../session/index.js');
    let message: DownMessage;
    try {
      message = JSON.parse(line) as DownMessage;
    } catch {
      return;
    }
    if (message.kind !== 'command') return;
    const { id, command } = message;
    try {
      let result: unknown;
      if (command.type === 'cancel') {
        if (this.#cancel === undefined)
          throw new SessionRejection('SERVER_CANNOT_CANCEL', `process ${process.pid} runs no cancellable flow`);
        this.#cancel(command.runId);
        result = { ok: true };
      } else {
        const service = this.#services.find((s) => s.registry.find(command.sessionId) !== undefined);
        if (service === undefined)
          throw new SessionRejection(
            'SESSION_NOT_LIVE',
            `code session \`${command.sessionId}\` is no longer live in process ${process.pid}`,
          );
        result = await runPersonCommand(service, command);
      }
      this.#send({ kind: 'reply', id, ok: true, result: result ?? null });
    } catch (error) {
      this.#send({ kind: 'reply', id, ok: false, error: encodeError(error) });
    }
  }
}
