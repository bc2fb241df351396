/**
 * A turn's diff: its capture, its cap and summary, and the paths its tool calls name. A sub-area
 * so a flow's step guard reaches it without the session service (a `run:`-only flow never loads
 * that; docs/architecture.md, "Start-up").
 */
export { TurnDiffCapture, type DiffBaseline } from './capture.js';
export { MAX_DIFF_BYTES, summaryLine, capUnifiedDiff } from './summary.js';
export { editPathsOf, workspacePath, type ToolCall } from './tool-events.js';
