import { readCommandLine, type ToolAsk } from '../../posture/index.js';
import { unreadableReason } from '../shared/ask-input.js';

type Json = Record<string, unknown>;

/**
 * A codex app-server approval request as a {@link ToolAsk} (shapes in tests/fixtures/asks/codex).
 * A command ask carries the command as codex will run it, wrapped in a shell
 * (`/bin/bash -lc '<script>'`), and its `cwd`; a file-change ask names only its item, whose
 * `changes[].path` (and `kind.move_path` for a rename) came with `item/started`; one that also asks
 * to write under a `grantRoot` for the rest of the session is refused.
 */
export function readCodexAsk(method: string, params: Json, item: Json | undefined): ToolAsk {
  if (method === 'item/fileChange/requestApproval') {
    const ask: ToolAsk = { kind: 'edit', toolName: 'fileChange', paths: [...new Set(changePaths(item?.changes))] };
    if (typeof params.grantRoot === 'string' && params.grantRoot !== '')
      // Granting a root would let later writes under it (its .git included) go unasked.
      ask.unreadable = unreadableReason(
        'codex',
        `for write access to all of ${params.grantRoot} for the rest of the session, which neo never grants (it approves files one by one)`,
        params,
      );
    else if (ask.paths.length === 0)
      ask.unreadable = unreadableReason(
        'codex',
        item === undefined
          ? `about a file change whose item ${String(params.itemId)} it never announced`
          : 'to change files without naming one',
        { params, item },
      );
    return ask;
  }
  const raw = typeof params.command === 'string' ? params.command : item?.command;
  const cwd = typeof params.cwd === 'string' && params.cwd !== '' ? [params.cwd] : [];
  const ask: ToolAsk = { kind: 'execute', toolName: 'commandExecution', paths: cwd };
  if (typeof raw !== 'string' || raw.trim() === '') {
    ask.unreadable = unreadableReason('codex', 'to run a command without naming it', params);
    return ask;
  }
  ask.command = raw;
  // Codex runs a command as the argv of a shell wrapper; read as argv, the rules judge the script
  // the wrapper runs. A wrapper neo cannot split into plain words stays one line no rule allows.
  const line = readCommandLine(raw);
  if (line.hazard === undefined && line.tokens.every((t) => 'word' in t && t.pattern !== true))
    ask.argv = line.tokens.map((t) => ('word' in t ? t.word : ''));
  return ask;
}

/** The paths of a fileChange item's `changes` (a list, or a map of path → change), renames' targets too. */
function changePaths(changes: unknown): string[] {
  const out: string[] = [];
  const add = (path: unknown, change: unknown) => {
    if (typeof path === 'string' && path !== '') out.push(path);
    const kind = (change as Json | undefined)?.kind as Json | undefined;
    if (typeof kind?.move_path === 'string' && kind.move_path !== '') out.push(kind.move_path);
  };
  if (Array.isArray(changes)) for (const change of changes) add((change as Json | undefined)?.path, change);
  else if (changes !== null && typeof changes === 'object')
    for (const [path, change] of Object.entries(changes as Json)) add(path, change);
  return out;
}
