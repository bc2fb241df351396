/** The dbos engine (docs/scale-out.md): loaded only by commands that use it, never at start-up. */
export {
  dbDown,
  dbPurge,
  dbRecordPath,
  dbStatus,
  dbUp,
  parsePort,
  readEmbeddedDb,
  type EmbeddedDb,
} from './embedded-db.js';
export { configuredDatabaseUrl, databaseUrl, redactUrl } from './database.js';
export { DbosClient } from './client.js';
export { runWorker } from './worker.js';
export { startSupervisor } from './supervisor.js';
export { DbosRunView, type ViewedRun } from './run-view.js';
export type { RunRow, RemoteResult } from './run-table.js';
export type { SessionRow } from './session-table.js';
export { prepareRemote, publishBase, type PreparedRemote } from './remote-base.js';
export { redactRemote, runRefs } from './remote-git.js';
