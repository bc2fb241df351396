/**
 * The model group's command modules as one lazily loaded module: one import per command run
 * instead of a chain of small shared chunks (each ES module costs the loader ~1 ms at start-up).
 */
export * as modelCheck from '../commands/model-check.js';
export * as modelServe from '../commands/model-serve.js';
