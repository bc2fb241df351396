/**
 * The catalog group's command modules as one lazily loaded module: one import per command run
 * instead of a chain of small shared chunks (each ES module adds to start-up;
 * the figure is in docs/architecture.md, "Performance notes").
 */
export * as backendsDoc from '../commands/backends-doc.js';
export * as backendsList from '../commands/backends-list.js';
export * as doctor from '../commands/doctor.js';
export * as capabilitiesApprove from '../commands/capabilities-approve.js';
export * as capabilitiesCheckUpdates from '../commands/capabilities-check-updates.js';
export * as capabilitiesDetect from '../commands/capabilities-detect.js';
export * as capabilitiesList from '../commands/capabilities-list.js';
export * as capabilitiesRevoke from '../commands/capabilities-revoke.js';
export * as capabilitiesShow from '../commands/capabilities-show.js';
export * as personaGraph from '../commands/persona-graph.js';
export * as personaRun from '../commands/persona-run.js';
export * as personasList from '../commands/personas-list.js';
export * as personasShow from '../commands/personas-show.js';
