/**
 * The session daemon: one long-lived process per NEO_HOME that hosts live code sessions so they
 * outlive a single CLI invocation. It listens on a unix socket (mode 0600), sweeps orphaned
 * records at boot, serves op requests, and exits once idle with no live session.
 */
import { chmod, rm } from 'node:fs/promises';
import { createServer, type Server, type Socket } from 'node:net';
import { loadDefinitions, loadDefinitionsOffThread, type DefinitionSet } from '../../definitions/index.js';
import { acquireOwnerLock, describeProcess, sweepOrphanedProcesses } from '../../execution/index.js';
import { packageBuild, packageVersion } from '../../util/package-root.js';
import { SessionRejection } from '../errors.js';
import type { SessionLog } from '../log.js';
import { createSessionService, type SessionService, type SessionServiceOptions } from '../service.js';
import { daemonPaths } from './paths.js';
import { privateSocketDir } from './socket-guard.js';
import { encodeError, lineReader, type DaemonRequest, type DaemonResponse, type DaemonStatus } from './protocol.js';
import { defined } from '../../util/defined.js';
import { socketAnswers } from '../../util/private-socket.js';

/** Five idle minutes with no live session and the daemon exits. */
export const DEFAULT_DAEMON_IDLE_MS = 5 * 60_000;

export interface DaemonOptions {
  home: string;
  idleMs?: number;
  log: SessionLog;
  /** Seams for tests (transports, clock, …); `home` and `definitions` are the daemon's. */
  service?: Partial<Omit<SessionServiceOptions, 'home' | 'definitions'>>;
  /**
   * Serve the daemon protocol over a service another component owns (`neo serve`: one process,
   * one registry). The daemon then never exits when idle, leaves the service open at close, and
   * hands a client's shutdown request to `onShutdown`.
   */
  host?: { service: SessionService; onShutdown: () => void };
}

export interface RunningDaemon {
  socket: string;
  service: SessionService;
  /** Resolves when the daemon has shut down (idle, a shutdown request, or close()). */
  closed: Promise<void>;
  close(): Promise<void>;
}

/** Thrown when a live daemon already owns the socket. */
export class DaemonAlreadyRunning extends Error {}

export async function startSessionDaemon(options: DaemonOptions): Promise<RunningDaemon> {
  const paths = daemonPaths(options.home);
  // Only this user can reach a socket in a private folder: that is the peer check.
  await privateSocketDir(paths.socket);
  if (await socketAnswers(paths.socket))
    throw new DaemonAlreadyRunning(`a session daemon already listens on ${paths.socket}`);
  const log = options.log;
  // The pid file is the start lock: two daemons racing to start for one NEO_HOME cannot both
  // win. It names its owner by pid and start time, so a dead owner's — or a zombie's, or a pid
  // the kernel gave to another process — is taken over at once.
  const lock = acquireOwnerLock(
    paths.pid,
    {},
    {
      busy: (holder) =>
        new DaemonAlreadyRunning(`a session daemon (${describeProcess(holder)}) is starting or running`),
    },
  );
  if (lock.tookOverFrom !== undefined)
    log.warn('code_session_daemon_lock_taken_over', { from: describeProcess(lock.tookOverFrom) });
  await rm(paths.socket, { force: true }); // a stale socket from a daemon that died

  // What a daemon killed before us left running (its sessions' CLIs and their commands) is
  // stopped before any session is hosted again: an adopted session must never run beside it.
  for (const owner of await sweepOrphanedProcesses(options.home))
    log.warn('code_session_orphan_processes_stopped', {
      owner: describeProcess(owner.owner),
      command: owner.command,
      groups: owner.groups.map((g) => `${g.label} (group ${g.pgid})`).join(', '),
    });
  const service =
    options.host?.service ??
    createSessionService({
      ...options.service,
      home: options.home,
      definitions: (await loadDefinitions({ home: options.home, noProject: true })).set,
      log,
    });
  await service.store.sweepLitter();
  const swept = await service.store.sweepOrphaned().catch((error: unknown) => {
    log.warn('code_session_sweep_failed', { error });
    return [];
  });
  if (swept.length > 0) log.info('code_session_orphans_swept', { count: swept.length });

  const startedAt = new Date().toISOString();
  const idleMs = options.idleMs ?? DEFAULT_DAEMON_IDLE_MS;
  const connections = new Set<Socket>();
  let lastActivity = Date.now();
  let closing: Promise<void> | undefined;
  let resolveClosed!: () => void;
  const closed = new Promise<void>((resolve) => (resolveClosed = resolve));

  const server: Server = createServer((socket) => {
    connections.add(socket);
    lastActivity = Date.now();
    // A client that hangs up (Ctrl-C on `neo session read`) abandons its blocking reads.
    const gone = new AbortController();
    socket.on('close', () => {
      connections.delete(socket);
      gone.abort(new SessionRejection('SESSION_READ_ABANDONED', 'the reader went away'));
      lastActivity = Date.now();
    });
    socket.on('error', () => socket.destroy());
    socket.on(
      'data',
      lineReader((line) => {
        lastActivity = Date.now();
        void handle(line, gone.signal).then((response) => {
          if (!socket.destroyed) socket.write(`${JSON.stringify(response)}\n`);
          lastActivity = Date.now();
        });
      }),
    );
  });

  async function handle(line: string, signal: AbortSignal): Promise<DaemonResponse> {
    let request: DaemonRequest;
    try {
      request = JSON.parse(line) as DaemonRequest;
    } catch {
      return {
        id: -1,
        ok: false,
        error: { code: 'SESSION_DAEMON_BAD_REQUEST', message: 'a request line is not JSON', class: 'usage' },
      };
    }
    try {
      switch (request.kind) {
        case 'ping': {
          const status: DaemonStatus = {
            pid: process.pid,
            version: packageVersion(),
            build: packageBuild(),
            hostedBy: options.host === undefined ? 'daemon' : 'server',
            liveSessions: service.liveSessionIds(),
            startedAt,
          };
          return { id: request.id, ok: true, result: status };
        }
        case 'shutdown':
          setImmediate(() => (options.host === undefined ? void close() : options.host.onShutdown()));
          return { id: request.id, ok: true, result: { stopping: true } };
        case 'execute': {
          const definitions = needsDefinitions(request.input) ? await definitionsFor(request.cwd) : undefined;
          const result = await service.execute(
            request.input,
            { scope: request.scope },
            {
              signal,
              cwd: request.cwd,
              ...defined({ definitions, env: request.env }),
            },
          );
          return { id: request.id, ok: true, result };
        }
        default:
          return {
            id: (request as { id: number }).id,
            ok: false,
            error: { code: 'SESSION_DAEMON_BAD_REQUEST', message: 'unknown request kind', class: 'usage' },
          };
      }
    } catch (error) {
      return { id: request.id, ok: false, error: encodeError(error) };
    }
  }

  async function definitionsFor(cwd: string): Promise<DefinitionSet> {
    // Each start sees the definitions of the project it runs in (and the owner's layer), loaded
    // in a worker thread: a large project must not stall the other sessions this daemon serves.
    return (await loadDefinitionsOffThread({ cwd, home: options.home })).set;
  }

  async function close(): Promise<void> {
    closing ??= (async () => {
      clearInterval(timer);
      server.close();
      // Connections drop last: a client that asked for the shutdown sees its socket close only
      // once every session is released and persisted, so `--stop` returns when the daemon is done.
      if (options.host === undefined) await service.close();
      await rm(paths.socket, { force: true });
      lock.release();
      log.info('code_session_daemon_stopped', {});
      for (const socket of connections) socket.destroy();
      resolveClosed();
    })();
    return closing;
  }

  // A session that ended but was not stopped still holds its driver's verdict to come, so the
  // daemon stays while any session is registered; `neo session daemon --stop` ends them all.
  const timer = setInterval(
    () => {
      const registered = service.registry.liveSessions().length > 0;
      if (options.host === undefined && !registered && connections.size === 0 && Date.now() - lastActivity >= idleMs)
        void close();
    },
    Math.max(50, Math.min(idleMs / 2, 30_000)),
  );

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(paths.socket, () => {
      server.off('error', reject);
      resolve();
    });
  });
  await chmod(paths.socket, 0o600);
  log.info('code_session_daemon_started', { socket: paths.socket, pid: process.pid });
  return { socket: paths.socket, service, closed, close };
}

function needsDefinitions(input: unknown): boolean {
  const op = typeof input === 'object' && input !== null ? (input as { op?: unknown }).op : undefined;
  return op === 'start' || op === 'list-backends';
}
