/**
 * The model group's command modules as one lazily loaded module: one import per command run
 * instead of a chain of small shared chunks (each ES module adds to start-up;
 * the figure is in docs/architecture.md, "Performance notes").
 */
export * as modelCheck from '../commands/model-check.js';
export * as modelServe from '../commands/model-serve.js';
