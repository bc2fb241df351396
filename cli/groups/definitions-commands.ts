/**
 * The definitions group's command modules as one lazily loaded module: one import per command run
 * instead of a chain of small shared chunks (each ES module adds to start-up;
 * the figure is in docs/architecture.md, "Performance notes"). `neo init` is not here: it plans a
 * flow's dependencies (engine/flow, and with it the session and learning code), which would
 * double what `neo validate` loads; its action imports it alone.
 */
export * as dev from '../commands/dev.js';
export * as schema from '../commands/schema.js';
export * as trust from '../commands/trust.js';
export * as validate from '../commands/validate.js';
