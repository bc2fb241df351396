/**
 * The session group's command modules as one lazily loaded module: one import per command run
 * instead of a chain of small shared chunks (each ES module adds to start-up;
 * the figure is in docs/architecture.md, "Performance notes").
 */
export * as sessionAnswer from '../commands/session-answer.js';
export { sessionUndo, sessionReset, sessionChecklist, sessionList } from '../commands/session-agent-state.js';
export * as sessionBackends from '../commands/session-backends.js';
export * as sessionDaemon from '../commands/session-daemon.js';
export * as sessionGuide from '../commands/session-guide.js';
export * as sessionInterrupt from '../commands/session-interrupt.js';
export * as sessionPosture from '../commands/session-posture.js';
export * as sessionRead from '../commands/session-read.js';
export * as sessionStart from '../commands/session-start.js';
export * as sessionStop from '../commands/session-stop.js';
export * as sessionsList from '../commands/sessions-list.js';
export * as sessionsShow from '../commands/sessions-show.js';
export * as sessionsTail from '../commands/sessions-tail.js';
