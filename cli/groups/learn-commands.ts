/**
 * The learn group's command modules as one lazily loaded module: one import per command run
 * instead of a chain of small shared chunks (each ES module costs the loader start-up time; figure
 * in docs/architecture.md, Performance notes).
 */
export * as learnDistill from '../commands/learn-distill.js';
export * as learnForget from '../commands/learn-forget.js';
export * as learnLessons from '../commands/learn-lessons.js';
