import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { contentHash } from '../util/content-hash.js';

/** The port `neo serve` listens on unless told otherwise. */
export const DEFAULT_PORT = 7400;

/** A unix socket path must fit in sun_path (108 bytes on Linux, 104 on macOS). */
const MAX_SOCKET_PATH = 100;

/** Where `neo serve` of one NEO_HOME keeps its token and listens for processes that attach. */
export interface ServerPaths {
  /** The bearer token (mode 0600), created on first start. */
  token: string;
  /** The unix socket flow and persona processes attach to. */
  attachSocket: string;
  /** `neo serve`'s own state: its URL and pid while it runs. */
  state: string;
}

export function serverPaths(home: string): ServerPaths {
  const inHome = join(home, 'serve.sock');
  // A long NEO_HOME cannot hold the socket; fall back to a per-home name in the temp dir.
  const attachSocket =
    Buffer.byteLength(inHome) <= MAX_SOCKET_PATH
      ? inHome
      : join(tmpdir(), `neo-serve-${contentHash(home).slice(0, 16)}.sock`);
  return { token: join(home, 'server.token'), attachSocket, state: join(home, 'serve.json') };
}
