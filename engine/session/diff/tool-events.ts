/** The diff fallback outside git: paths from file-edit tool calls (seed 004 §6). Pure. */
import { isAbsolute, relative, resolve, sep } from 'node:path';

const PATH_KEYS = ['path', 'file_path', 'filePath', 'notebook_path', 'from', 'to'] as const;

/** A tool call as the fallback reads it: the adapter's normalized `paths` when it has them. */
export interface ToolCall {
  name: string;
  input: unknown;
  paths?: readonly string[];
}

/**
 * The paths a tool call edits, when its tool is one of the backend's editToolNames: the event's
 * `paths` (the adapter read them from its CLI's own shapes), else the `path`/`file_path`/…
 * inputs (both ends of a rename). As the CLI wrote them: absolute or relative to the cwd.
 */
export function editPathsOf(call: ToolCall, editToolNames: readonly string[]): string[] {
  if (!editToolNames.includes(call.name)) return [];
  if (call.paths !== undefined && call.paths.length > 0) return call.paths.filter((p) => p !== '');
  if (typeof call.input !== 'object' || call.input === null) return [];
  const record = call.input as Record<string, unknown>;
  const paths: string[] = [];
  for (const key of PATH_KEYS) {
    const value = record[key];
    if (typeof value === 'string' && value !== '') paths.push(value);
  }
  return paths;
}

/**
 * A path as the diff shows it: relative to `root` with `/` separators when it lies inside (a
 * `./x`, a `sub/../x` and an absolute path into the tree all read `x`), else absolute.
 */
export function workspacePath(root: string, path: string): string {
  const absolute = resolve(root, path);
  const rel = relative(root, absolute);
  if (rel === '' || rel === '..' || rel.startsWith(`..${sep}`) || isAbsolute(rel)) return absolute;
  return rel.split(sep).join('/');
}
