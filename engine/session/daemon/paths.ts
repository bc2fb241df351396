import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { contentHash } from '../../util/content-hash.js';

/** A unix socket path must fit in sun_path (108 bytes on Linux, 104 on macOS). */
const MAX_SOCKET_PATH = 100;

/** Where the session daemon of one NEO_HOME listens, keeps its pid and writes its log. */
export interface DaemonPaths {
  socket: string;
  pid: string;
  log: string;
}

export function daemonPaths(home: string): DaemonPaths {
  const inHome = join(home, 'session-daemon.sock');
  // A long NEO_HOME cannot hold the socket; fall back to a per-home name in the temp dir.
  const socket =
    Buffer.byteLength(inHome) <= MAX_SOCKET_PATH
      ? inHome
      : join(tmpdir(), `neo-sessions-${contentHash(home).slice(0, 16)}.sock`);
  return { socket, pid: join(home, 'session-daemon.pid'), log: join(home, 'session-daemon.log') };
}
