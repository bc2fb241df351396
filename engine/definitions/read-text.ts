import { readFileSync, statSync } from 'node:fs';
import type { Diagnostic } from './diagnostic.js';

/** Definition files larger than this are refused: no real definition is this big. */
export const MAX_DEFINITION_BYTES = 1024 * 1024;

const zero = { line: 1, column: 1, offset: 0 };

/**
 * Reads a definition file as text, refusing what cannot be a definition: too large, binary
 * (a NUL byte), not UTF-8. A BOM is dropped. Never throws. Synchronous on purpose: definition
 * files are small, and a busy libuv thread pool must not delay a hot reload.
 */
export function readDefinitionText(file: string): { text: string } | { diagnostic: Diagnostic } {
  const at = { file, start: zero, end: zero };
  try {
    const info = statSync(file);
    if (!info.isFile())
      return { diagnostic: { code: 'DEF_NOT_A_FILE', severity: 'error', message: 'not a regular file', span: at } };
    if (info.size > MAX_DEFINITION_BYTES) {
      return {
        diagnostic: {
          code: 'DEF_FILE_TOO_LARGE',
          severity: 'error',
          message: `file is ${formatBytes(info.size)}; definitions are limited to ${formatBytes(MAX_DEFINITION_BYTES)}`,
          span: at,
          hint: 'split it, or move data out of the definition',
        },
      };
    }
    const bytes = readFileSync(file);
    return decodeDefinitionBytes(file, bytes);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    return {
      diagnostic: { code: 'DEF_READ_FAILED', severity: 'error', message: `cannot read file: ${message}`, span: at },
    };
  }
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
