/**
 * The CLI side of the session daemon: connect to the NEO_HOME's socket, or start the daemon as a
 * detached child (the built `neo` binary with `session daemon`) and wait for its `ready` line.
 */
import { createWriteStream } from 'node:fs';
import { once } from 'node:events';
import { createConnection, type Socket } from 'node:net';
import { spawnDetached } from '../../execution/index.js';
import { NeoError } from '../../util/errors.js';
import { packageBuild } from '../../util/package-root.js';
import { SessionFailure } from '../errors.js';
import { daemonPaths } from './paths.js';
import { checkDaemonSocket } from './socket-guard.js';
import { decodeError, lineReader, type DaemonRequest, type DaemonResponse, type DaemonStatus } from './protocol.js';
import { mkdirPrivate, PRIVATE_FILE_MODE } from '../../util/private-store.js';

/** How long a fresh daemon may take to say `ready`. */
const START_TIMEOUT_MS = 20_000;
/** How long `shutdown()` waits for the daemon to release its sessions and hang up. */
const STOP_TIMEOUT_MS = 30_000;

export interface DaemonClient {
  /** Runs one op in the daemon (a start with the caller's environment); rejects with the op's own typed error. */
  execute(input: unknown, scope: string, cwd: string, env?: NodeJS.ProcessEnv): Promise<unknown>;
  ping(): Promise<DaemonStatus>;
  /** Asks the daemon to stop and resolves once it has hung up (every session released); `SESSION_DAEMON_STOP_SLOW` after `timeoutMs`. */
  shutdown(timeoutMs?: number): Promise<void>;
  close(): void;
}

export interface ConnectOptions {
  /** argv that starts the daemon (e.g. [node, /path/to/neo/bin.js, 'session', 'daemon']); without it, no spawn. */
  spawn?: readonly string[];
  env?: NodeJS.ProcessEnv;
}

/** A client for the running daemon, starting one when `spawn` is given. Undefined when none runs and none may start. */
export async function connectDaemon(home: string, options: ConnectOptions = {}): Promise<DaemonClient | undefined> {
  const { socket: path } = daemonPaths(home);
  // Before talking: the socket's folder is private to this user, and the socket is ours.
  await checkDaemonSocket(path);
  const existing = await tryConnect(path);
  if (existing !== undefined) {
    const client = new SocketClient(existing);
    // Ops on existing sessions go to whoever hosts them; a new session is never started by a
    // daemon of another build (its code, its definitions schema, its adapters).
    if (options.spawn === undefined || (await sameBuildOrStopped(client))) return client;
  }
  if (options.spawn === undefined) return undefined;
  await spawnDaemon(home, options.spawn, options.env ?? process.env);
  // The child said ready (or that another daemon won the race): connect, allowing the winner a moment to listen.
  await checkDaemonSocket(path);
  for (let attempt = 0; attempt < 100; attempt++) {
    const socket = await tryConnect(path);
    if (socket !== undefined) return new SocketClient(socket);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new SessionFailure('SESSION_DAEMON_UNREACHABLE', `the session daemon started but does not answer on ${path}`, {
    hint: `see ${daemonPaths(home).log}`,
  });
}

/**
 * Whether the daemon runs this very build. One of another build is stopped when it hosts no live
 * session (the caller then starts a fresh one); otherwise the start is refused, saying why.
 */
async function sameBuildOrStopped(client: DaemonClient): Promise<boolean> {
  const status = await client.ping();
  if (status.build === packageBuild()) return true;
  const theirs = status.build ?? status.version;
  if (status.hostedBy === 'server' || status.liveSessions.length > 0) {
    client.close();
    throw new SessionFailure(
      'SESSION_DAEMON_VERSION',
      `the ${status.hostedBy === 'server' ? '`neo serve`' : 'session daemon'} of this NEO_HOME (pid ${status.pid}) runs neo ${theirs}, not this neo (${packageBuild()})${status.liveSessions.length > 0 ? `, and hosts ${status.liveSessions.length} live session(s)` : ''}`,
      {
        hint:
          status.hostedBy === 'server'
            ? 'restart `neo serve` with this neo'
            : 'finish or stop its sessions (`neo sessions list`), then `neo session daemon --stop`; the next start runs this neo',
      },
    );
  }
  await client.shutdown();
  client.close();
  return false;
}

async function spawnDaemon(home: string, argv: readonly string[], env: NodeJS.ProcessEnv): Promise<void> {
  await mkdirPrivate(home);
  const logPath = daemonPaths(home).log;
  // A file stream with an fd is handed to the child as is: the daemon logs straight to the file,
  // not through a pipe that would break when this CLI process exits.
  const logStream = createWriteStream(logPath, { flags: 'a', mode: PRIVATE_FILE_MODE });
  await once(logStream, 'open');
  const child = spawnDetached(argv, { cwd: home, env: { ...env, NEO_HOME: home }, stderr: logStream });
  try {
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`no ready line within ${START_TIMEOUT_MS / 1000}s`)),
        START_TIMEOUT_MS,
      );
      child.stdout!.on(
        'data',
        lineReader((line) => {
          if (line.startsWith('ready') || line.startsWith('already-running')) {
            clearTimeout(timer);
            resolve();
          }
        }),
      );
      child.once('error', (error) => {
        clearTimeout(timer);
        reject(error);
      });
      child.once('exit', (code, signal) => {
        clearTimeout(timer);
        reject(new Error(`the daemon exited with code ${code ?? signal}`));
      });
    });
  } catch (error) {
    throw new SessionFailure(
      'SESSION_DAEMON_START_FAILED',
      `could not start the session daemon: ${error instanceof Error ? error.message : String(error)}`,
      { hint: `see ${logPath}` },
    );
  } finally {
    logStream.destroy();
    child.stdout?.destroy();
    child.unref();
  }
}

function tryConnect(path: string): Promise<Socket | undefined> {
  return new Promise((resolve) => {
    const socket = createConnection(path);
    socket.once('connect', () => resolve(socket));
    socket.once('error', () => resolve(undefined));
  });
}

class SocketClient implements DaemonClient {
  readonly #socket: Socket;
  readonly #pending = new Map<number, { resolve: (r: DaemonResponse) => void; reject: (e: Error) => void }>();
  #nextId = 1;

  constructor(socket: Socket) {
    this.#socket = socket;
    socket.on(
      'data',
      lineReader((line) => {
        const response = JSON.parse(line) as DaemonResponse;
        const waiter = this.#pending.get(response.id);
        this.#pending.delete(response.id);
        waiter?.resolve(response);
      }),
    );
    const fail = () => {
      for (const waiter of this.#pending.values())
        waiter.reject(
          new SessionFailure('SESSION_DAEMON_GONE', 'the session daemon closed the connection', {
            hint: 'its log is session-daemon.log in NEO_HOME',
          }),
        );
      this.#pending.clear();
    };
    socket.on('close', fail);
    socket.on('error', fail);
  }

  async execute(input: unknown, scope: string, cwd: string, env?: NodeJS.ProcessEnv): Promise<unknown> {
    return this.#result(
      await this.#request({
        kind: 'execute',
        input,
        scope,
        cwd,
        ...(env === undefined ? {} : { env: definedOnly(env) }),
      }),
    );
  }

  async ping(): Promise<DaemonStatus> {
    return (await this.#result(await this.#request({ kind: 'ping' }))) as DaemonStatus;
  }

  async shutdown(timeoutMs = STOP_TIMEOUT_MS): Promise<void> {
    const hungUp = this.#socket.closed
      ? Promise.resolve()
      : once(this.#socket, 'close').then(
          () => undefined,
          () => undefined,
        );
    await this.#result(await this.#request({ kind: 'shutdown' }));
    // The daemon hangs up once every session is released and persisted: that is "stopped".
    let timer: NodeJS.Timeout | undefined;
    const slow = new Promise<'slow'>((resolve) => (timer = setTimeout(() => resolve('slow'), timeoutMs)));
    const outcome = await Promise.race([hungUp.then(() => 'stopped' as const), slow]).finally(() =>
      clearTimeout(timer),
    );
    if (outcome === 'slow')
      throw new SessionFailure(
        'SESSION_DAEMON_STOP_SLOW',
        `the session daemon is still stopping after ${timeoutMs / 1000}s`,
        { hint: 'see session-daemon.log in NEO_HOME; the daemon exits once its sessions are released' },
      );
  }

  close(): void {
    this.#socket.end();
    this.#socket.unref();
  }

  #request(body: DistributiveOmit<DaemonRequest, 'id'>): Promise<DaemonResponse> {
    const id = this.#nextId++;
    return new Promise((resolve, reject) => {
      this.#pending.set(id, { resolve, reject });
      this.#socket.write(`${JSON.stringify({ ...body, id })}\n`);
    });
  }

  #result(response: DaemonResponse): unknown {
    if (response.ok) return response.result;
    throw decodeError(response.error);
  }
}

type DistributiveOmit<T, K extends keyof T> = T extends unknown ? Omit<T, K> : never;

function definedOnly(env: NodeJS.ProcessEnv): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(env)) if (value !== undefined) out[key] = value;
  return out;
}

/** Whether an error came from the daemon plumbing rather than from an op. */
export function isDaemonError(error: unknown): boolean {
  return error instanceof NeoError && error.code.startsWith('SESSION_DAEMON_');
}
