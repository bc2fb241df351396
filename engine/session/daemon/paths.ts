import { join } from 'node:path';
import { privateSocketPath } from '../../util/private-socket.js';

/** Where the session daemon of one NEO_HOME listens, keeps its pid and writes its log. */
export interface DaemonPaths {
  socket: string;
  pid: string;
  log: string;
}

export function daemonPaths(home: string): DaemonPaths {
  // In NEO_HOME, or a folder of this user's own when NEO_HOME is too long for a socket path.
  return {
    socket: privateSocketPath(home, 'session-daemon'),
    pid: join(home, 'session-daemon.pid'),
    log: join(home, 'session-daemon.log'),
  };
}
