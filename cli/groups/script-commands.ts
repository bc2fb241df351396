/**
 * The script group's command modules as one lazily loaded module: one import per command run
 * instead of a chain of small shared chunks (each ES module adds to start-up;
 * the figure is in docs/architecture.md, "Performance notes").
 */
export * as scriptFromSession from '../commands/script-from-session.js';
export * as scriptPlay from '../commands/script-play.js';
export * as scriptValidate from '../commands/script-validate.js';
