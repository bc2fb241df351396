import { join } from 'node:path';
import { privateSocketPath } from '../util/private-socket.js';

/** The port `neo serve` listens on unless told otherwise. */
export const DEFAULT_PORT = 7400;

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
  // In NEO_HOME, or a folder of this user's own when NEO_HOME is too long for a socket path.
  const attachSocket = privateSocketPath(home, 'serve');
  return { token: join(home, 'server.token'), attachSocket, state: join(home, 'serve.json') };
}
