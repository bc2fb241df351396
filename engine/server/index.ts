/**
 * The control plane (`neo serve`): HTTP API, SSE feeds, /metrics and the web UI over one
 * session registry, plus the attach socket flow and persona processes stream into. The server
 * itself loads on use; the attach client is small and loaded by every run that finds a server.
 */
import type { RunningServer, ServeOptions } from './server.js';

export async function startServer(options: ServeOptions): Promise<RunningServer> {
  return (await import('./server.js')).startServer(options);
}
export type { RunningServer, ServeOptions } from './server.js';
export { attachToServer, type ServerAttachment, type AttachableService } from './attach/client.js';
export { serverPaths, type ServerPaths } from './paths.js';
export { isLoopback } from './hosts.js';
export { DEFAULT_PORT } from './paths.js';
