/**
 * The names a neo worker and a neo client agree on in DBOS's system database. The application
 * version is fixed (not DBOS's hash of the registered code) so that every worker of this neo
 * version can recover every other's runs.
 */
export const APP_NAME = 'neo';
export const APP_VERSION = 'neo-flow-1';
export const QUEUE = 'neo-runs';
export const WORKFLOW = 'neoRun';
