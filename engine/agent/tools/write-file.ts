/** write_file: creates or replaces a file atomically (temp file, fsync, rename). */
import { stat } from 'node:fs/promises';
import type { AgentTool } from '../tool.js';
import { requireString, ToolInputError } from '../tool.js';
import { displayPath, writablePath } from './paths.js';
import type { CommandSandbox } from './shell-env.js';
import { writeInside } from './pinned-io.js';

export function writeFileTool(cwd: string, sandbox?: CommandSandbox): AgentTool {
  return {
    effect: 'write',
    spec: {
      name: 'write_file',
      description:
        'Creates a file, or replaces its whole content, atomically. Parent folders are created. Prefer edit for changing part of an existing file.',
      inputSchema: {
        type: 'object',
        properties: {
          path: { type: 'string', description: 'File path, relative to the working directory or absolute.' },
          content: { type: 'string', description: 'The complete new content.' },
        },
        required: ['path', 'content'],
      },
    },
    async run(input) {
      const path = await writablePath(cwd, requireString(input, 'path'), sandbox);
      const content = input.content;
      if (typeof content !== 'string') throw new ToolInputError('"content" must be a string');
      let mode: number | undefined;
      try {
        const info = await stat(path);
        if (info.isDirectory()) return { output: `${displayPath(cwd, path)} is a directory`, isError: true };
        mode = info.mode & 0o7777;
      } catch {
        // a new file
      }
      const existed = mode !== undefined;
      // The rename replaces the inode: the new one gets the old file's permissions.
      await writeInside(cwd, path, content, mode);
      return {
        output: `${existed ? 'replaced' : 'created'} ${displayPath(cwd, path)} (${Buffer.byteLength(content)} bytes)`,
        isError: false,
      };
    },
  };
}
