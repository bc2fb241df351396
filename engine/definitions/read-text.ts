import { closeSync, constants, fstatSync, openSync, readFileSync, statSync, type Stats } from 'node:fs';
import type { Diagnostic } from './diagnostic.js';
import { describeNonFile } from '../util/regular-file.js';

/** Definition files larger than this are refused: no real definition is this big. */
export const MAX_DEFINITION_BYTES = 1024 * 1024;

const zero = { line: 1, column: 1, offset: 0 };

/** What a path named as a definition is, without opening it. */
export type PathKind = 'file' | 'folder' | 'missing' | { diagnostic: Diagnostic };

/**
 * Classifies a path by `stat` alone: a FIFO, a device or a socket is never opened (opening a
 * FIFO waits for a writer), and a symbolic-link loop is a diagnostic, not an exception.
 */
export function pathKind(file: string): PathKind {
  let info: Stats | undefined;
  try {
    info = statSync(file, { throwIfNoEntry: false });
  } catch (error) {
    return { diagnostic: unreadable(file, error) };
  }
  if (info === undefined) return 'missing';
  if (info.isFile()) return 'file';
  if (info.isDirectory()) return 'folder';
  return { diagnostic: notAFile(file, info) };
}

/**
 * Reads a definition file as text, refusing what cannot be a definition: not a regular file
 * (checked before opening, and again on the opened descriptor so a swap cannot make it block),
 * too large, binary (a NUL byte), not UTF-8. A BOM is dropped. Never throws. Synchronous on
 * purpose: definition files are small, and a busy libuv thread pool must not delay a hot reload.
 */
export function readDefinitionText(file: string): { text: string } | { diagnostic: Diagnostic } {
  const kind = pathKind(file);
  if (typeof kind === 'object') return kind;
  if (kind !== 'file') return { diagnostic: kind === 'folder' ? notAFile(file, 'a folder') : unreadable(file, kind) };
  let fd: number | undefined;
  try {
    fd = openSync(file, constants.O_RDONLY | constants.O_NONBLOCK);
    const info = fstatSync(fd);
    if (!info.isFile()) return { diagnostic: notAFile(file, info) };
    if (info.size > MAX_DEFINITION_BYTES) return { diagnostic: tooLarge(file, info.size) };
    return decodeDefinitionBytes(file, readFileSync(fd));
  } catch (error) {
    return { diagnostic: unreadable(file, error) };
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

function notAFile(file: string, what: Stats | string): Diagnostic {
  return {
    code: 'DEF_NOT_A_FILE',
    severity: 'error',
    message: `not a regular file: this is ${typeof what === 'string' ? what : describeNonFile(what)}`,
    span: { file, start: zero, end: zero },
    hint: 'name a definition file (YAML or Markdown) or a folder of them',
  };
}

function unreadable(file: string, error: unknown): Diagnostic {
  const code = (error as { code?: unknown } | null)?.code;
  if (code === 'ELOOP') return notAFile(file, 'a loop of symbolic links');
  const message = error === 'missing' ? 'no such file' : error instanceof Error ? error.message : String(error);
  return {
    code: 'DEF_READ_FAILED',
    severity: 'error',
    message: `cannot read file: ${message}`,
    span: { file, start: zero, end: zero },
  };
}

function tooLarge(file: string, size: number): Diagnostic {
  return {
    code: 'DEF_FILE_TOO_LARGE',
    severity: 'error',
    message: `file is ${formatBytes(size)}; definitions are limited to ${formatBytes(MAX_DEFINITION_BYTES)}`,
    span: { file, start: zero, end: zero },
    hint: 'split it, or move data out of the definition',
  };
}

/** The byte checks of {@link readDefinitionText}, for text already in memory. */
export function decodeDefinitionBytes(file: string, bytes: Uint8Array): { text: string } | { diagnostic: Diagnostic } {
  const at = { file, start: zero, end: zero };
  const sniff = bytes.subarray(0, 8192);
  if (sniff.includes(0)) {
    return {
      diagnostic: {
        code: 'DEF_BINARY_FILE',
        severity: 'error',
        message: 'this is a binary file, not a definition',
        span: at,
        hint: 'definitions are UTF-8 YAML or Markdown text',
      },
    };
  }
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    const bad = firstInvalidUtf8(bytes);
    return {
      diagnostic: {
        code: 'DEF_ENCODING',
        severity: 'error',
        message: `invalid UTF-8 at byte ${bad}`,
        span: at,
        hint: 'save the file as UTF-8',
      },
    };
  }
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  return { text };
}

function firstInvalidUtf8(bytes: Uint8Array): number {
  let low = 0;
  let high = bytes.length;
  // Binary search for the shortest invalid prefix; a prefix cut mid-character also fails, so
  // this finds a byte at or just before the real problem, which is precise enough to act on.
  while (low < high) {
    const mid = (low + high) >> 1;
    try {
      new TextDecoder('utf-8', { fatal: true }).decode(bytes.subarray(0, mid + 1), { stream: true });
      low = mid + 1;
    } catch {
      high = mid;
    }
  }
  // `low` is where the prefix stops decoding; report the start of the broken sequence.
  let start = low;
  while (start > 0 && (bytes[start - 1]! & 0xc0) === 0x80) start--;
  if (start > 0 && bytes[start - 1]! >= 0xc0) start--;
  return start;
}

function formatBytes(bytes: number): string {
  return bytes >= 1024 * 1024 ? `${(bytes / 1024 / 1024).toFixed(1)} MB` : `${Math.ceil(bytes / 1024)} KB`;
}
