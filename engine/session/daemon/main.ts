import { join } from 'node:path';
import type { Writable } from 'node:stream';
import { JsonLinesLog, teeLogs } from '../../observability/index.js';
import { formatLogLine, type SessionLog } from '../log.js';
import { DaemonAlreadyRunning, DEFAULT_DAEMON_IDLE_MS, startSessionDaemon, type DaemonOptions } from './server.js';
import { defined } from '../../util/defined.js';

/** Every log line timestamped, into the daemon's log file (its stderr). */
function fileLog(stream: Writable): SessionLog {
  const write = (level: string, event: string, fields?: Record<string, unknown>) =>
    stream.write(`${new Date().toISOString()} ${level} ${formatLogLine(event, fields)}\n`);
  return {
    info: (event, fields) => write('info', event, fields),
    warn: (event, fields) => write('warn', event, fields),
  };
}

/**
 * The body of `neo session daemon`: start, print `ready <pid>` (the spawner's signal; nothing
 * else is written to stdout, whose reader goes away), serve until idle or told to stop.
 */
export async function runSessionDaemon(options: {
  home: string;
  env: NodeJS.ProcessEnv;
  stdout: Writable;
  stderr: Writable;
  service?: DaemonOptions['service'];
}): Promise<number> {
  // Text lines for a person (session-daemon.log), JSON lines with levels for tools.
  const decisions = new JsonLinesLog(join(options.home, 'logs', 'session-daemon.jsonl'));
  const log = teeLogs(fileLog(options.stderr), decisions);
  const idle = Number(options.env.NEO_SESSION_DAEMON_IDLE_MS);
  let daemon;
  try {
    daemon = await startSessionDaemon({
      home: options.home,
      log,
      ...defined({ service: options.service }),
      idleMs: Number.isFinite(idle) && idle > 0 ? idle : DEFAULT_DAEMON_IDLE_MS,
    });
  } catch (error) {
    if (error instanceof DaemonAlreadyRunning) {
      options.stdout.write('already-running\n');
      return 0;
    }
    log.warn('code_session_daemon_start_failed', { error });
    throw error;
  }
  const stop = () => void daemon.close();
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
  process.once('SIGHUP', stop);
  options.stdout.write(`ready ${process.pid}\n`);
  await daemon.closed;
  await decisions.close();
  return 0;
}
