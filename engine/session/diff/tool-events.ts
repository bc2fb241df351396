/** The diff fallback outside git: paths from file-edit tool calls (seed 004 §6). Pure. */
import { askPaths, lexicalPath, relativeInside } from '../../posture/index.js';

/** A tool call as the fallback reads it: the adapter's normalized `paths` when it has them. */
export interface ToolCall {
  name: string;
  input: unknown;
  paths?: readonly string[];
}

/**
 * The paths a tool call edits, when its tool is one of the backend's editToolNames: the event's
 * `paths` (the adapter read them from its CLI's own shapes), else every path its input names in
 * any backend's spelling. As the CLI wrote them: absolute, or relative to the cwd.
 */
export function editPathsOf(call: ToolCall, editToolNames: readonly string[]): string[] {
  if (!editToolNames.includes(call.name)) return [];
  if (call.paths !== undefined && call.paths.length > 0) return call.paths.filter((p) => p !== '');
  return askPaths(call.input);
}

/**
 * A path as a diff shows it: relative to `root` when it lies inside (a `./x`, a `sub/../x` and
 * an absolute path into the tree all read `x`), else absolute.
 */
export function workspacePath(root: string, path: string): string {
  const inside = relativeInside(root, path);
  return inside === undefined || inside === '' ? lexicalPath(root, path) : inside;
}
