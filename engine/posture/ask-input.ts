/**
 * What a permission ask is about, read from the tool input of any backend: the command it would
 * run and the files it would touch. Each backend spells these differently (Claude Code's
 * `file_path`, codex's `changes`, ACP's `rawInput`, the script backend's `path`/`command`), so
 * the reader accepts every spelling and says "unknown" rather than guessing. Pure.
 */
import type { ToolAsk } from './ask.js';
import { classifyToolName } from './tool-names.js';

/** The command an ask would run: a shell line, or an argv list run without a shell. */
export type AskCommand = { line: string } | { argv: string[] };

/** The command of an ask's input, if it has one. */
export function askCommand(input: unknown): AskCommand | undefined {
  if (typeof input === 'string') return { line: input };
  const record = asRecord(input);
  if (record === undefined) return undefined;
  for (const key of ['command', 'cmd']) {
    const value = record[key];
    if (typeof value === 'string' && value.trim() !== '') return { line: value };
    if (Array.isArray(value) && value.length > 0 && value.every((part) => typeof part === 'string'))
      return { argv: value as string[] };
  }
  const nested = asRecord(record.rawInput) ?? asRecord(record.input);
  return nested === undefined ? undefined : askCommand(nested);
}

/**
 * Keys under which the CLIs' tool inputs name files, as captured (tests/fixtures/asks): OpenCode's
 * permission asks say `filepath` (and `parentDir` for a folder outside), Copilot's edit asks
 * `fileName`.
 */
const PATH_KEYS = [
  'path',
  'file_path',
  'filePath',
  'filepath',
  'fileName',
  'parentDir',
  'notebook_path',
  'from',
  'to',
  'target',
  'destination',
];

/** The `*** Add|Update|Delete File:` and `*** Move to:` headers of an apply_patch text. */
const PATCH_HEADER = /^\*\*\* (?:(?:Add|Update|Delete) File|Move to): (.+)$/gm;

/** Every file path an ask's input names (deduplicated, in order); a bare string input is read as a patch. */
export function askPaths(input: unknown): string[] {
  const out: string[] = [];
  if (typeof input === 'string') patchPaths(input, out);
  else collect(input, out, 0);
  return [...new Set(out)];
}

function patchPaths(text: string, out: string[]): void {
  for (const match of text.matchAll(PATCH_HEADER)) out.push(match[1]!.trim());
}

function collect(input: unknown, out: string[], depth: number): void {
  const record = asRecord(input);
  if (record === undefined || depth > 2) return;
  for (const key of PATH_KEYS) {
    const value = record[key];
    if (typeof value === 'string' && value !== '') out.push(value);
  }
  const changes = record.changes;
  if (Array.isArray(changes)) {
    for (const change of changes) {
      const path = asRecord(change)?.path;
      if (typeof path === 'string' && path !== '') out.push(path);
    }
  } else if (asRecord(changes) !== undefined) {
    // codex spells a file change set as a map of path → change.
    out.push(...Object.keys(changes as Record<string, unknown>));
  }
  const locations = record.locations;
  if (Array.isArray(locations)) for (const location of locations) collect(location, out, depth + 1);
  for (const key of ['patch', 'input']) {
    const patch = record[key];
    if (typeof patch === 'string') patchPaths(patch, out);
  }
  if (typeof record.rawInput === 'string') patchPaths(record.rawInput, out);
  else collect(record.rawInput, out, depth + 1);
}

function asRecord(value: unknown): Record<string, unknown> | undefined {
  return value !== null && typeof value === 'object' && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;
}

/**
 * A ToolAsk read from a bare tool name and input, for a clarification whose adapter did not
 * normalize it: the kind from the tool's name, paths and command from any known spelling.
 */
export function toolAskFromInput(toolName: string, input: unknown, editToolNames: readonly string[] = []): ToolAsk {
  const ask: ToolAsk = { kind: classifyToolName(toolName, editToolNames), toolName, paths: askPaths(input) };
  const command = askCommand(input);
  if (command !== undefined) {
    if ('line' in command) ask.command = command.line;
    else {
      ask.argv = command.argv;
      ask.command = command.argv.join(' ');
    }
  }
  return ask;
}
