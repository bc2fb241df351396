/**
 * edit: exact search and replace. `old_string` must occur exactly once unless `replace_all` is
 * set, so an edit never lands in the wrong place; an empty `old_string` creates a new file.
 */
import type { FileHandle } from 'node:fs/promises';
import type { AgentTool } from '../tool.js';
import { optionalBool, requireString, ToolInputError } from '../tool.js';
import { looksBinary } from './binary.js';
import { displayPath, writablePath } from './paths.js';
import type { CommandSandbox } from './shell-env.js';
import { openInside, writeInside } from './pinned-io.js';

export function editTool(cwd: string, sandbox?: CommandSandbox): AgentTool {
  return {
    effect: 'write',
    spec: {
      name: 'edit',
      description:
        'Replaces old_string with new_string in a file. old_string must match the file exactly (whitespace included) and occur exactly once, unless replace_all is true. With an empty old_string, creates the file with new_string (it must not exist).',
      inputSchema: {
        type: 'object',
        properties: {
          path: { type: 'string', description: 'File path, relative to the working directory or absolute.' },
          old_string: { type: 'string', description: 'The exact text to replace.' },
          new_string: { type: 'string', description: 'The replacement text.' },
          replace_all: { type: 'boolean', description: 'Replace every occurrence instead of requiring exactly one.' },
        },
        required: ['path', 'old_string', 'new_string'],
      },
    },
    async run(input) {
      const path = await writablePath(cwd, requireString(input, 'path'), sandbox);
      const shown = displayPath(cwd, path);
      const oldString = input.old_string;
      const newString = input.new_string;
      if (typeof oldString !== 'string') throw new ToolInputError('"old_string" must be a string');
      if (typeof newString !== 'string') throw new ToolInputError('"new_string" must be a string');
      const replaceAll = optionalBool(input, 'replace_all') ?? false;
      const read = await readProven(cwd, path);
      const bytes = read?.bytes;
      if (oldString === '') {
        if (bytes !== undefined)
          return {
            output: `${shown} already exists; give old_string to edit it, or use write_file to replace it`,
            isError: true,
          };
        await writeInside(cwd, path, newString);
        return { output: `created ${shown}`, isError: false };
      }
      if (bytes === undefined) return { output: `no such file: ${shown}`, isError: true };
      if (looksBinary(bytes)) return { output: `${shown} is a binary file; edit works on text`, isError: true };
      if (oldString === newString)
        return { output: 'old_string and new_string are the same; nothing to change', isError: true };
      const text = bytes.toString('utf8');
      const count = occurrences(text, oldString);
      if (count === 0) return { output: `old_string was not found in ${shown}`, isError: true };
      if (count > 1 && !replaceAll) {
        return {
          output: `old_string occurs ${count} times in ${shown}; include more surrounding lines to make it unique, or set replace_all`,
          isError: true,
        };
      }
      // split/join, not String.replace: `$` sequences in new_string must stay literal.
      const updated = replaceAll ? text.split(oldString).join(newString) : spliceOnce(text, oldString, newString);
      // The rename replaces the inode: the new one keeps the old file's permissions (an executable script stays executable).
      await writeInside(cwd, path, updated, read!.mode);
      return { output: `edited ${shown}: replaced ${count} occurrence${count === 1 ? '' : 's'}`, isError: false };
    },
  };
}

/** The file's bytes and permissions, read from the one open file proven inside `cwd`; undefined when there is none. */
async function readProven(cwd: string, path: string): Promise<{ bytes: Buffer; mode: number } | undefined> {
  let handle: FileHandle;
  try {
    handle = await openInside(cwd, path);
  } catch (error) {
    if (error instanceof ToolInputError) throw error;
    return undefined;
  }
  try {
    const info = await handle.stat();
    if (!info.isFile()) return undefined;
    return { bytes: await handle.readFile(), mode: info.mode & 0o7777 };
  } finally {
    await handle.close();
  }
}

function occurrences(text: string, needle: string): number {
  let count = 0;
  for (let at = text.indexOf(needle); at !== -1; at = text.indexOf(needle, at + needle.length)) count++;
  return count;
}

function spliceOnce(text: string, needle: string, replacement: string): string {
  const at = text.indexOf(needle);
  return text.slice(0, at) + replacement + text.slice(at + needle.length);
}
