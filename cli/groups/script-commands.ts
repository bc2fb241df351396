/**
 * The script group's command modules as one lazily loaded module: one import per command run
 * instead of a chain of small shared chunks (each ES module costs the loader ~1 ms at start-up).
 */
export * as scriptFromSession from '../commands/script-from-session.js';
export * as scriptPlay from '../commands/script-play.js';
export * as scriptValidate from '../commands/script-validate.js';
