import { isAbsolute, relative, sep } from 'node:path';
import type { Action } from '../../generated/script.js';

/** What one recorded tool call becomes in a script. */
export interface ToolConversion {
  actions: Action[];
  /** Why (part of) it was left out, when that is worth telling. */
  note?: string;
  /** A tool the script cannot perform (an MCP tool, a fetch…) that is not read-only: replay it as an `ask`. */
  foreign?: boolean;
}

/** Tools that only read: leaving them out of a replay changes nothing on disk. */
const READ_ONLY =
  /^(read|grep|glob|ls|list|search|find|websearch|todowrite|todoread|notebookread|toolsearch|view|think)/i;

/**
 * Maps a recorded tool call onto script actions by the shape of its input, so the spellings of
 * every backend work: the script backend's own (`path`, `search`/`replace`), Claude Code's
 * (`file_path`, `old_string`/`new_string`, MultiEdit's `edits`), ACP diffs (`oldText`/`newText`)
 * and any tool with a `command`.
 */
export function toolActions(
  name: string,
  input: unknown,
  result: { output: string; isError: boolean } | undefined,
  cwd: string | undefined,
): ToolConversion {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) return skip(name);
  const record = input as Record<string, unknown>;
  const rawPath = str(record.path) ?? str(record.file_path) ?? str(record.filePath);
  const path = rawPath === undefined ? undefined : localPath(rawPath, cwd);
  if (path !== undefined && path.outside)
    return { actions: [], note: `${name}: ${rawPath} is outside the recorded working tree; left out` };
  const file = path?.path;

  const from = str(record.from);
  const to = str(record.to);
  if (from !== undefined && to !== undefined) {
    const a = localPath(from, cwd);
    const b = localPath(to, cwd);
    if (a.outside || b.outside)
      return { actions: [], note: `${name}: a rename outside the recorded working tree; left out` };
    return { actions: [{ rename: { from: a.path, to: b.path } }] };
  }
  const command = commandOf(record.command);
  if (command !== undefined && file === undefined) {
    const run: NonNullable<Action['run']> = { command };
    const cwdInput = str(record.cwd);
    if (cwdInput !== undefined) {
      const dir = localPath(cwdInput, cwd);
      if (!dir.outside && dir.path !== '' && dir.path !== '.') run.cwd = dir.path;
    }
    const exit = result === undefined ? undefined : /\[exit code (\d+)\]\s*$/.exec(result.output)?.[1];
    // A script-recorded run that succeeded with a non-zero exit had that exit expected.
    if (exit !== undefined && exit !== '0' && result?.isError === false) run.expectExit = Number(exit);
    return { actions: [{ run }] };
  }
  if (file === undefined) return skip(name);
  if (Array.isArray(record.edits)) {
    const actions: Action[] = [];
    for (const edit of record.edits) {
      const action = editAction(file, edit);
      if (action === undefined)
        return { actions: [], note: `${name}: an edit of ${file} has an unknown shape; left out` };
      actions.push(action);
    }
    return { actions };
  }
  if (typeof record.content === 'string') return { actions: [{ write: { path: file, content: record.content } }] };
  const edit = editAction(file, record);
  if (edit !== undefined) return { actions: [edit] };
  if (/delete|remove|unlink/i.test(name)) return { actions: [{ delete: { path: file } }] };
  return skip(name);
}

function editAction(file: string, value: unknown): Action | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const record = value as Record<string, unknown>;
  const search = pick(record, ['search', 'old_string', 'oldString', 'oldText']);
  const replace = pick(record, ['replace', 'new_string', 'newString', 'newText']);
  if (replace === undefined) return undefined;
  // An ACP diff with no old text creates the file.
  if (search === undefined || search === '') {
    return 'oldText' in record || 'old_string' in record ? { write: { path: file, content: replace } } : undefined;
  }
  const all = record.all === true || record.replace_all === true || record.replaceAll === true;
  return { edit: { path: file, search, replace, ...(all ? { all: true } : {}) } };
}

function commandOf(value: unknown): [string, ...string[]] | string | undefined {
  if (Array.isArray(value) && value.length > 0 && value.every((v) => typeof v === 'string'))
    return value as [string, ...string[]];
  // A command line stays a /bin/sh string: the recorded agent ran it through a shell too, and
  // splitting it would break builtins and quoting.
  return typeof value === 'string' && value.trim() !== '' ? value : undefined;
}

function localPath(path: string, cwd: string | undefined): { path: string; outside: boolean } {
  if (!isAbsolute(path)) return { path, outside: false };
  if (cwd === undefined) return { path, outside: true };
  const rel = relative(cwd, path);
  if (rel === '' || rel === '..' || rel.startsWith(`..${sep}`) || isAbsolute(rel)) return { path, outside: true };
  return { path: rel.split(sep).join('/'), outside: false };
}

function pick(record: Record<string, unknown>, keys: readonly string[]): string | undefined {
  for (const key of keys) {
    const value = record[key];
    if (typeof value === 'string') return value;
  }
  return undefined;
}

function str(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}

function skip(name: string): ToolConversion {
  return READ_ONLY.test(name) ? { actions: [] } : { actions: [], foreign: true };
}
