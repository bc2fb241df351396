/** The db and worker commands as one lazily loaded module (see flow-commands.ts). */
export * as dbUp from '../commands/db-up.js';
export * as dbDown from '../commands/db-down.js';
export * as dbStatus from '../commands/db-status.js';
export * as worker from '../commands/worker.js';
