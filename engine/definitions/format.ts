import { relative } from 'node:path';
import { excerpt } from '../util/excerpt.js';
import type { Diagnostic } from './diagnostic.js';
import { readDefinitionText } from './read-text.js';

/** Longest message or hint printed; a message may quote a value from the file. */
const MAX_MESSAGE_CHARS = 400;
/** Widest source line a code frame shows; a longer line is shown as a window around the span. */
const FRAME_WIDTH = 100;
/** How much of the line before the span a window keeps. */
const FRAME_LEAD = 30;

export interface FormatOptions {
  /** ANSI colours on. */
  color?: boolean;
  /** Paths are shown relative to this folder. */
  cwd?: string;
  /** Source text per file (read from disk when absent). */
  readText?: (file: string) => string | undefined;
}

const paint = (on: boolean, code: string, text: string) => (on ? `\u001b[${code}m${text}\u001b[0m` : text);

/**
 * `file:line:col: error[CODE]: message`, a code frame with a caret under the span, the hint and
 * related locations. One formatter for every diagnostic neo prints.
 */
export function formatDiagnostic(diagnostic: Diagnostic, options: FormatOptions = {}): string {
  const color = options.color ?? false;
  const readText = options.readText ?? readFileOrUndefined;
  const lines: string[] = [];
  const where = diagnostic.span
    ? `${displayPath(diagnostic.span.file, options.cwd)}:${diagnostic.span.start.line}:${diagnostic.span.start.column}: `
    : '';
  const severity =
    diagnostic.severity === 'error'
      ? paint(color, '1;31', `error[${diagnostic.code}]`)
      : paint(color, '1;33', `warning[${diagnostic.code}]`);
  lines.push(`${where}${severity}: ${paint(color, '1', excerpt(diagnostic.message, MAX_MESSAGE_CHARS))}`);
  if (diagnostic.span) {
    const frame = codeFrame(
      readText(diagnostic.span.file),
      diagnostic.span.start.line,
      diagnostic.span.start.column,
      diagnostic.span.end,
      color,
    );
    if (frame) lines.push(frame);
  }
  if (diagnostic.hint) lines.push(`  ${paint(color, '36', 'hint')}: ${excerpt(diagnostic.hint, MAX_MESSAGE_CHARS)}`);
  for (const related of diagnostic.related ?? []) {
    lines.push(
      `  ${paint(color, '2', 'note')}: ${excerpt(related.message, MAX_MESSAGE_CHARS)} at ${displayPath(related.span.file, options.cwd)}:${related.span.start.line}:${related.span.start.column}`,
    );
  }
  return lines.join('\n');
}

/** Formats many diagnostics and a one-line summary. */
export function formatDiagnostics(diagnostics: readonly Diagnostic[], options: FormatOptions = {}): string {
  const cache = new Map<string, string | undefined>();
  const readText =
    options.readText ??
    ((file: string) => {
      if (!cache.has(file)) cache.set(file, readFileOrUndefined(file));
      return cache.get(file);
    });
  return diagnostics.map((d) => formatDiagnostic(d, { ...options, readText })).join('\n\n');
}

/** "2 errors, 1 warning" */
export function summarizeDiagnostics(diagnostics: readonly Diagnostic[]): string {
  const errors = diagnostics.filter((d) => d.severity === 'error').length;
  const warnings = diagnostics.length - errors;
  const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;
  return `${plural(errors, 'error')}, ${plural(warnings, 'warning')}`;
}

function codeFrame(
  text: string | undefined,
  line: number,
  column: number,
  end: { line: number; column: number },
  color: boolean,
): string | undefined {
  if (text === undefined) return undefined;
  const all = text.split(/\r?\n/);
  const source = all[line - 1];
  if (source === undefined) return undefined;
  const gutter = String(line + 1).length;
  const out: string[] = [];
  const row = (n: number, content: string, mark = ' ') => `${mark} ${String(n).padStart(gutter)} | ${content}`;
  const before = all[line - 2];
  if (line > 1 && before !== undefined) out.push(paint(color, '2', row(line - 1, frameWindow(before, 0).text)));
  const window = frameWindow(source, column - 1);
  out.push(row(line, window.text, paint(color, '31', '>')));
  const width = end.line === line ? Math.max(1, end.column - column) : Math.max(1, source.length - column + 1);
  const caretAt = window.shift + column - 1;
  const room = Math.max(1, window.text.length - caretAt);
  out.push(
    `  ${' '.repeat(gutter)} | ${' '.repeat(Math.max(0, caretAt))}${paint(color, '31', '^'.repeat(Math.min(width, room, 80)))}`,
  );
  return out.join('\n');
}

/**
 * At most {@link FRAME_WIDTH} characters of a source line, from a little before `at`; `shift` is
 * how far a character moved (negative when the start was cut, plus one for the leading `…`).
 */
function frameWindow(source: string, at: number): { text: string; shift: number } {
  const line = source.replace(/\t/g, '→');
  if (line.length <= FRAME_WIDTH) return { text: line, shift: 0 };
  const from = Math.max(0, Math.min(at - FRAME_LEAD, line.length - FRAME_WIDTH));
  const to = from + FRAME_WIDTH;
  const head = from > 0 ? '…' : '';
  return { text: `${head}${line.slice(from, to)}${to < line.length ? '…' : ''}`, shift: head.length - from };
}

function displayPath(file: string, cwd: string | undefined): string {
  if (cwd === undefined) return file;
  const rel = relative(cwd, file);
  return rel.startsWith('..') ? file : rel;
}

/** The file's text for a code frame: only a regular, readable, small text file (never a FIFO). */
function readFileOrUndefined(file: string): string | undefined {
  const read = readDefinitionText(file);
  return 'text' in read ? read.text : undefined;
}
