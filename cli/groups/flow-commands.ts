/**
 * The flow group's command modules as one lazily loaded module: one import per command run
 * instead of a chain of small shared chunks (each ES module adds to start-up;
 * the figure is in docs/architecture.md, "Performance notes").
 */
export * as flowApprove from '../commands/flow-approve.js';
export * as flowCancel from '../commands/flow-cancel.js';
export * as flowClean from '../commands/flow-clean.js';
export * as flowGraph from '../commands/flow-graph.js';
export * as flowList from '../commands/flow-list.js';
export * as flowLogs from '../commands/flow-logs.js';
export * as flowResume from '../commands/flow-resume.js';
export * as flowRun from '../commands/flow-run.js';
export * as flowShow from '../commands/flow-show.js';
export * as flowValidate from '../commands/flow-validate.js';
