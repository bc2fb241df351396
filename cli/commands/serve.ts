import type { Writable } from 'node:stream';
import { formatLogLine, type SessionLog } from '../../engine/session/index.js';
import { DEFAULT_PORT, isLoopback, startServer, type RunningServer } from '../../engine/server/index.js';
import { UsageError } from '../../engine/util/errors.js';
import { neoHome } from '../../engine/util/neo-home.js';
import { EXIT } from '../exit-codes.js';
import { writeLine, type CommandIO } from '../io.js';

interface ServeFlags {
  port?: string;
  host?: string;
  allowRemote?: boolean;
  json?: boolean;
  databaseUrl?: string;
  supervise?: boolean;
}

/**
 * `neo serve`: starts the control plane for this NEO_HOME and prints the one URL to open (the
 * token rides in its fragment, which the browser never sends). Log lines go to stderr. Runs
 * until Ctrl-C / SIGTERM (exit 130) or `neo session daemon --stop` (exit 0).
 */
export async function run(io: CommandIO, options: ServeFlags): Promise<number> {
  const port = parsePort(options.port ?? String(DEFAULT_PORT));
  const host = options.host ?? '127.0.0.1';
  if (!isLoopback(host)) {
    if (options.allowRemote !== true)
      throw new UsageError('CLI_SERVE_REMOTE', `--host ${host} would let other machines reach the control plane`, {
        hint: 'add --allow-remote if that is what you want; the default 127.0.0.1 is reachable only from this machine',
      });
    writeLine(
      io.stderr,
      `warning: listening on ${host}: anyone who can reach it and holds the token can drive your agents, and plain HTTP carries the token in clear`,
    );
  }
  // Signals are handled from the start: one that arrives while the server starts stops it once up.
  let signalled = false;
  let server: RunningServer | undefined;
  const stop = () => {
    signalled = true;
    void server?.close();
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  const home = neoHome(io.env);
  const log = stderrLog(io.stderr);
  const dbos = await dbosEngine(io, home, options, log);
  try {
    server = await startServer({ home, host, port, log, ...(dbos === undefined ? {} : { dbos: dbos.view }) });
    if (signalled) await server.close();
    else if (options.json)
      writeLine(io.stdout, JSON.stringify({ url: server.url, origin: server.origin, pid: process.pid }));
    else writeLine(io.stdout, server.url);
    await server.closed;
  } finally {
    process.removeListener('SIGINT', stop);
    process.removeListener('SIGTERM', stop);
    await dbos?.supervisor?.close();
    // A server that failed to start never took the view over (a started one closes it).
    if (server === undefined) await dbos?.view.close();
  }
  return signalled ? EXIT.interrupted : EXIT.ok;
}

/**
 * The dbos engine's part of the control plane, when a database is named (--database-url,
 * NEO_DATABASE_URL, or the one `neo db up` started for this NEO_HOME): its runs shown beside the
 * local ones, and with --supervise the supervisor that recovers dead workers' runs. Nothing of
 * the engine connects anywhere without a database (the DBOS SDK loads only for --supervise).
 */
async function dbosEngine(io: CommandIO, home: string, options: ServeFlags, log: SessionLog) {
  const engine = await import('../../engine/flow/engines/dbos/index.js');
  const url = engine.configuredDatabaseUrl(home, io.env, options.databaseUrl);
  if (url === undefined) {
    if (options.supervise === true)
      throw new UsageError(
        'ENGINE_DB_UNSET',
        "--supervise watches over the dbos engine's workers and no database is named",
        {
          hint: 'pass --database-url postgresql://…, set NEO_DATABASE_URL, or start one here with `neo db up`',
        },
      );
    return undefined;
  }
  log.info('serve_dbos', { database: engine.redactUrl(url), supervise: options.supervise === true });
  return {
    view: new engine.DbosRunView(url),
    ...(options.supervise === true
      ? { supervisor: engine.startSupervisor(url, (line) => log.info('serve_supervisor', { line })) }
      : {}),
  };
}

function stderrLog(stream: Writable): SessionLog {
  const write = (level: string, event: string, fields?: Record<string, unknown>) =>
    stream.write(`${new Date().toISOString()} ${level} ${formatLogLine(event, fields)}\n`);
  return {
    info: (event, fields) => write('info', event, fields),
    warn: (event, fields) => write('warn', event, fields),
  };
}

function parsePort(text: string): number {
  const port = Number(text);
  if (!/^[0-9]+$/.test(text) || port > 65535)
    throw new UsageError('CLI_BAD_PORT', `--port must be a number from 0 to 65535; got ${JSON.stringify(text)}`, {
      hint: '0 picks a free port',
    });
  return port;
}
