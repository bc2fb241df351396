/** read_file: a text file's lines, numbered, optionally a range; binary files are refused. */
import type { FileHandle } from 'node:fs/promises';
import type { AgentTool, ToolResult } from '../tool.js';
import { optionalInt, requireString, ToolInputError } from '../tool.js';
import { pathExists } from '../../util/path-exists.js';
import { looksBinary } from './binary.js';
import { confinedPath, displayPath } from './paths.js';
import { openInside } from './pinned-io.js';

const DEFAULT_LIMIT = 2000;
const MAX_LINE_CHARS = 2000;
const MAX_FILE_BYTES = 50 * 1024 * 1024;

export function readFileTool(cwd: string): AgentTool {
  return {
    effect: 'read',
    spec: {
      name: 'read_file',
      description: `Reads a text file and returns its lines numbered from 1. By default the first ${DEFAULT_LIMIT} lines; pass offset (first line, 1-based) and limit (number of lines) for a range. Binary files are refused.`,
      inputSchema: {
        type: 'object',
        properties: {
          path: { type: 'string', description: 'File path, relative to the working directory or absolute.' },
          offset: { type: 'integer', minimum: 1, description: 'First line to return (1-based).' },
          limit: { type: 'integer', minimum: 1, description: 'Number of lines to return.' },
        },
        required: ['path'],
      },
    },
    async run(input) {
      const path = await confinedPath(cwd, requireString(input, 'path'));
      const offset = optionalInt(input, 'offset', 1) ?? 1;
      const limit = optionalInt(input, 'limit', 1) ?? DEFAULT_LIMIT;
      // Only the messages name the file, so its display path is worked out only for them.
      const shown = (): string => displayPath(cwd, path);
      const text = await readText(cwd, path, shown);
      if (typeof text !== 'string') return text;
      if (text === '') return { output: `${shown()} is empty`, isError: false };
      const { lines, total } = lineRange(text, offset, limit);
      if (offset > total)
        return { output: `${shown()} has ${total} lines; offset ${offset} is past the end`, isError: true };
      const end = offset - 1 + lines.length;
      const width = String(end).length;
      const body = lines
        .map(
          (line, i) =>
            `${String(offset + i).padStart(width)}\t${line.length > MAX_LINE_CHARS ? `${line.slice(0, MAX_LINE_CHARS)}… [line cut]` : line}`,
        )
        .join('\n');
      const more = offset > 1 || end < total ? `\n[lines ${offset}-${end} of ${total}]` : '';
      return { output: body + more, isError: false };
    },
  };
}

/**
 * Lines `first` to `first + count - 1` (1-based) of `text`, and how many lines it has (a final
 * newline does not start another). Only the lines asked for become strings: a range of a large
 * file does not split the whole file.
 */
function lineRange(text: string, first: number, count: number): { lines: string[]; total: number } {
  const last = first + count - 1;
  let total = 0;
  let start = -1;
  let stop = text.endsWith('\n') ? text.length - 1 : text.length;
  for (let at = 0; at < text.length;) {
    total++;
    if (total === first) start = at;
    const newline = text.indexOf('\n', at);
    if (total === last && newline !== -1) stop = newline;
    if (newline === -1) break;
    at = newline + 1;
  }
  return { lines: start === -1 ? [] : text.slice(start, stop).split('\n'), total };
}

/** The file's text, or a result saying why it is not shown. */
async function readText(cwd: string, path: string, shown: () => string): Promise<string | ToolResult> {
  const bytes = await readWhole(cwd, path, shown);
  if (typeof bytes === 'string') return { output: bytes, isError: true };
  if (looksBinary(bytes))
    return { output: `${shown()} is a binary file (${bytes.length} bytes); not shown`, isError: true };
  return bytes.toString('utf8');
}

/**
 * The file's bytes, or why it cannot be shown. One open file serves the checks and the read, so
 * the size checked is the size of the file read, and the file read is the one proven to lie in
 * the working directory. The open is non-blocking and a named pipe is refused (pinned-io.ts).
 */
async function readWhole(cwd: string, path: string, shown: () => string): Promise<Buffer | string> {
  let handle: FileHandle;
  try {
    handle = await openInside(cwd, path);
  } catch (error) {
    if (error instanceof ToolInputError) throw error;
    // A file that exists but cannot be opened says why; anything else is not there.
    if (!(await pathExists(path))) return `no such file: ${shown()}`;
    throw error;
  }
  try {
    const info = await handle.stat();
    if (info.isDirectory()) return `${shown()} is a directory; use glob to list files`;
    if (info.size > MAX_FILE_BYTES) throw new ToolInputError(`${shown()} is ${info.size} bytes; too large to read`);
    if (info.size === 0) return await readToEnd(handle, shown);
    const bytes = Buffer.allocUnsafe(info.size);
    let filled = 0;
    while (filled < bytes.length) {
      const { bytesRead } = await handle.read(bytes, filled, bytes.length - filled, filled);
      if (bytesRead === 0) break;
      filled += bytesRead;
    }
    return filled === bytes.length ? bytes : bytes.subarray(0, filled);
  } finally {
    await handle.close();
  }
}

/** Bytes read at a time from a file whose size is not known in advance. */
const UNSIZED_READ_BYTES = 64 * 1024;

/**
 * A file whose size is not known in advance — procfs, a device — read to its end, but
 * never past the cap: /dev/zero has no end.
 */
async function readToEnd(handle: FileHandle, shown: () => string): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let total = 0;
  for (;;) {
    const { bytesRead, buffer } = await handle.read(
      Buffer.allocUnsafe(UNSIZED_READ_BYTES),
      0,
      UNSIZED_READ_BYTES,
      null,
    );
    if (bytesRead === 0) return Buffer.concat(chunks, total);
    total += bytesRead;
    if (total > MAX_FILE_BYTES)
      throw new ToolInputError(`${shown()} has more than ${MAX_FILE_BYTES} bytes; too large to read`);
    chunks.push(buffer.subarray(0, bytesRead));
  }
}
