/**
 * `neo serve`: one process, one session registry, one event seam. It hosts the session daemon's
 * protocol over its own service (so `neo session …` talks to it), listens on the attach socket
 * for flow and persona processes, and serves the HTTP API, the SSE feeds, /metrics and the web
 * UI on 127.0.0.1.
 */
import { realpathSync } from 'node:fs';
import { rm, writeFile } from 'node:fs/promises';
import { createServer as createHttpServer, type Server } from 'node:http';
import { isIP } from 'node:net';
import { hostname, networkInterfaces } from 'node:os';
import { join } from 'node:path';
import { getRequestListener } from '@hono/node-server';
import { loadDefinitions } from '../definitions/index.js';
import { releaseRecorder, scheduleDistill, trackRecords } from '../learning/index.js';
import { catalogEntries, scheduleCapabilityRefresh } from '../capabilities/index.js';
import { processMetrics, PrometheusSink } from '../observability/index.js';
import {
  connectDaemon,
  createSessionService,
  startSessionDaemon,
  type SessionLog,
  type SessionServiceOptions,
} from '../session/index.js';
import { NeoError, UsageError } from '../util/errors.js';
import { packageRoot, packageVersion } from '../util/package-root.js';
import { socketAnswers } from '../util/private-socket.js';
import { createApp } from './app.js';
import { watchQuestions } from './approvals-watch.js';
import { listenForAttach } from './attach/server.js';
import type { ServerContext } from './context.js';
import { createFlowFeed } from './flow-feed.js';
import { DbosRuns, type DbosRunSource } from './dbos-runs.js';
import { EventHub } from './hub.js';
import { serverPaths } from './paths.js';
import { createResumeDispatcher } from './resume.js';
import { livenessOf } from './liveness.js';
import { spawnFlowResume } from './run-resume.js';
import { allowedHosts } from './hosts.js';
import { createSessionBridge } from './session-bridge.js';
import { loadOrCreateToken } from './token.js';

import { DEFAULT_PORT } from './paths.js';
import { mkdirPrivate } from '../util/private-store.js';
import { socketFolderProblem } from '../util/private-socket.js';
import { unsafeAttachSocket } from './attach/client.js';

export interface ServeOptions {
  home: string;
  host?: string;
  /** 0 picks a free port. */
  port?: number;
  log: SessionLog;
  /** The built web UI; default: dist/web of this install. */
  webRoot?: string;
  heartbeatMs?: number;
  /** Where OTEL_EXPORTER_OTLP_ENDPOINT is read (default: process.env). */
  env?: NodeJS.ProcessEnv;
  /** argv that runs this neo (for `neo flow resume`); default: this process's own binary. */
  neoArgv?: readonly string[];
  /** The dbos engine's runs to show beside the local ones (the CLI opens it when a database is named). */
  dbos?: DbosRunSource;
  /** Seams for tests (transports, idle timeout, …). */
  service?: Partial<Omit<SessionServiceOptions, 'home' | 'definitions' | 'log' | 'metrics'>>;
}

export interface RunningServer {
  /** The URL to open: the UI with the token in its fragment (never sent to the server). */
  url: string;
  /** The plain base URL (http://host:port). */
  origin: string;
  host: string;
  port: number;
  token: string;
  context: ServerContext;
  /** Resolves once the server stopped (close(), or `neo session daemon --stop`). */
  closed: Promise<void>;
  close(): Promise<void>;
}

export async function startServer(options: ServeOptions): Promise<RunningServer> {
  const { home, log } = options;
  const host = options.host ?? '127.0.0.1';
  const paths = serverPaths(home);
  await mkdirPrivate(home);
  // Only this user can reach a socket in a private folder: that is the peer check.
  const unsafe = await socketFolderProblem(paths.attachSocket, { create: true });
  if (unsafe !== undefined) throw unsafeAttachSocket(paths.attachSocket, unsafe);
  if (await socketAnswers(paths.attachSocket))
    throw new NeoError('SERVER_ALREADY_RUNNING', `\`neo serve\` already runs for ${home}`, {
      hint: `see ${paths.state} for its URL; one server per NEO_HOME`,
    });
  await takeOverIdleDaemon(home);
  const token = await loadOrCreateToken(paths.token);

  const definitions = (await loadDefinitions({ home, noProject: true })).set;
  // /metrics serves the Prometheus registry; every record also goes to OTLP when configured.
  const prometheus = new PrometheusSink();
  const exported = await processMetrics({ env: options.env ?? process.env, forward: prometheus });
  const metrics = exported.sink;
  const records = trackRecords(home);
  const service = createSessionService({
    ...options.service,
    home,
    definitions,
    log,
    metrics,
    trackRecord: (backend) => records.lines(backend),
    // Sessions started here (a person's, the web UI's) have no judge: inferred outcomes.
    onReleased: releaseRecorder({ home, verdict: 'person', metrics }),
  });
  const hub = new EventHub();
  const bridge = createSessionBridge({ hub, readRecord: (id) => service.store.get(id) });
  const stopBridge = service.onSessionEvent((live) => bridge.push(live));
  const flowFeed = createFlowFeed(home, hub);
  const dbos = options.dbos === undefined ? undefined : new DbosRuns(options.dbos);
  dbos?.watch(hub);

  let closing: Promise<void> | undefined;
  let resolveClosed!: () => void;
  const closed = new Promise<void>((resolve) => (resolveClosed = resolve));
  const daemon = await startSessionDaemon({ home, log, host: { service, onShutdown: () => void close() } });
  const attach = await listenForAttach(paths.attachSocket, {
    session: (live) => bridge.push(live),
    flow: (report, from) => flowFeed.report(report, from.pid),
    metrics,
    detached: (process) => {
      flowFeed.detached(process.runs, process.pid);
      for (const sessionId of process.sessions)
        void service.store.get(sessionId).then((record) => record && hub.publish('code_session_changed', { record }));
      log.info('serve_process_detached', { pid: process.pid });
    },
    log,
  });
  const stopWatching = await watchQuestions(home, (item) => flowFeed.requested(item));
  const resume = createResumeDispatcher({
    home,
    service,
    definitions: () => definitions,
    liveness: (id, record) => livenessOf({ service, attach }, id, record),
    releaseElsewhere: async (id) => {
      await attach.ownerOfSession(id)?.send({ type: 'stop', sessionId: id });
    },
    metrics,
    log,
  });
  const neoArgv = options.neoArgv ?? ownArgv();

  const hosts = new Set<string>();
  const context: ServerContext = {
    home,
    token,
    hosts,
    service,
    hub,
    bridge,
    attach,
    stepSessions: (runId) => flowFeed.stepSessions(runId),
    resume,
    ...(neoArgv === undefined ? {} : { resumeRun: (runId: string) => spawnFlowResume(home, neoArgv, runId) }),
    metrics: prometheus,
    ...(dbos === undefined ? {} : { dbos }),
    definitions: () => definitions,
    webRoot: options.webRoot ?? join(packageRoot(), 'dist', 'web'),
    heartbeatMs: options.heartbeatMs ?? 15_000,
    maxQueue: 50_000,
    log,
    startedAt: new Date().toISOString(),
    version: packageVersion(),
  };
  const app = createApp(context);
  const http: Server = createHttpServer(getRequestListener(app.fetch));
  try {
    await new Promise<void>((resolve, reject) => {
      http.once('error', reject);
      http.listen(options.port ?? DEFAULT_PORT, host, () => {
        http.off('error', reject);
        resolve();
      });
    });
  } catch (error) {
    await shutdown();
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EADDRINUSE')
      throw new UsageError('SERVER_PORT_IN_USE', `port ${options.port ?? DEFAULT_PORT} on ${host} is in use`, {
        hint: 'pick another with --port (0 picks a free one)',
      });
    throw error;
  }
  const address = http.address();
  const port = typeof address === 'object' && address !== null ? address.port : (options.port ?? DEFAULT_PORT);
  // Filled once the port is known; the app's gate reads this same set.
  for (const name of allowedHosts(host, port)) hosts.add(name);
  for (const name of wildcardNames(host)) hosts.add(`${name}:${port}`.toLowerCase());
  const urlHost = isIP(host) === 6 ? `[${host}]` : host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host;
  const origin = `http://${urlHost}:${port}`;
  await writeFile(paths.state, `${JSON.stringify({ origin, pid: process.pid, startedAt: context.startedAt })}\n`, {
    mode: 0o600,
  });
  log.info('serve_started', { origin, pid: process.pid });
  // The nightly lessons pass, failure-soft (its own audit log); NEO_LESSONS=off turns it off.
  const lessonsCron = definitions.configs.map((c) => c.data.server?.lessonsCron).findLast((c) => c !== undefined);
  const lessons = scheduleDistill(lessonsCron, {
    home,
    cwd: home,
    backends: () => definitions.ids('backend'),
    env: options.env ?? process.env,
    log: (level, event, fields) => (level === 'warn' ? log.warn(event, fields) : log.info(event, fields)),
  });
  if (lessons !== undefined) log.info('serve_lessons_scheduled', { next: lessons.next()?.toISOString() });
  // The weekly check of the capability catalog's pins (data only; NEO_CAPABILITY_REFRESH=off turns it off).
  const refresh = scheduleCapabilityRefresh(
    home,
    () => catalogEntries(definitions),
    options.env ?? process.env,
    (event, fields) => log.info(event, fields),
    (notice) => hub.publish('capability_updates', notice),
  );
  if (refresh !== undefined) log.info('serve_capability_refresh_scheduled', { next: refresh.next()?.toISOString() });

  async function shutdown(): Promise<void> {
    lessons?.stop();
    refresh?.stop();
    await new Promise<void>((resolve) => {
      http.close(() => resolve());
      http.closeAllConnections();
    });
    stopWatching();
    await resume.close();
    await service.close();
    stopBridge();
    bridge.close();
    await attach.close();
    await daemon.close();
    await exported.close();
    await dbos?.close();
    await rm(paths.state, { force: true });
  }

  function close(): Promise<void> {
    closing ??= shutdown().finally(() => {
      log.info('serve_stopped', {});
      resolveClosed();
    });
    return closing;
  }

  return { url: `${origin}/#token=${token}`, origin, host, port, token, context, closed, close };
}

/** A session daemon with no live session gives way to the server; a busy one is left alone. */
async function takeOverIdleDaemon(home: string): Promise<void> {
  const client = await connectDaemon(home);
  if (client === undefined) return;
  try {
    const status = await client.ping();
    if (status.liveSessions.length > 0)
      throw new NeoError(
        'SERVER_DAEMON_BUSY',
        `a session daemon (pid ${status.pid}) holds ${status.liveSessions.length} live session(s) for ${home}`,
        { hint: 'stop them first (`neo session stop <id>`, or `neo session daemon --stop`), then start `neo serve`' },
      );
    await client.shutdown();
  } finally {
    client.close();
  }
}

/** Host names a server on a wildcard address may be reached by (its interfaces and hostname). */
function wildcardNames(host: string): string[] {
  if (host !== '0.0.0.0' && host !== '::') return [];
  const names = [hostname()];
  for (const list of Object.values(networkInterfaces()))
    for (const entry of list ?? []) names.push(entry.family === 'IPv6' ? `[${entry.address}]` : entry.address);
  return names;
}

function ownArgv(): string[] | undefined {
  const bin = process.argv[1];
  if (bin === undefined) return undefined;
  try {
    return [process.execPath, realpathSync(bin)];
  } catch {
    return undefined;
  }
}
