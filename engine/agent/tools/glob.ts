/** glob: files matching a pattern below a folder, sorted. */
import { stat } from 'node:fs/promises';
import type { AgentTool } from '../tool.js';
import { optionalString, requireString } from '../tool.js';
import { globToRegExp } from './glob-match.js';
import { confinedPath, displayPath } from './paths.js';
import { walkFiles } from './walk.js';

const MAX_RESULTS = 1000;

export function globTool(cwd: string): AgentTool {
  return {
    effect: 'read',
    spec: {
      name: 'glob',
      description:
        'Lists files whose path (relative to path, default the working directory) matches a glob pattern such as "**/*.ts" or "src/*.{js,json}". .git and node_modules are skipped.',
      inputSchema: {
        type: 'object',
        properties: {
          pattern: {
            type: 'string',
            description: 'Glob pattern: ** crosses folders, * and ? do not, {a,b} alternates.',
          },
          path: { type: 'string', description: 'Folder to search from (default: the working directory).' },
        },
        required: ['pattern'],
      },
    },
    async run(input) {
      const pattern = requireString(input, 'pattern');
      const root = await confinedPath(cwd, optionalString(input, 'path') ?? '.');
      try {
        if (!(await stat(root)).isDirectory())
          return { output: `${displayPath(cwd, root)} is not a folder`, isError: true };
      } catch {
        return { output: `no such folder: ${displayPath(cwd, root)}`, isError: true };
      }
      const regex = globToRegExp(pattern.replace(/^\.\//, ''));
      const found: string[] = [];
      let more = false;
      for await (const rel of walkFiles(root)) {
        if (!regex.test(rel)) continue;
        if (found.length >= MAX_RESULTS) {
          more = true;
          break;
        }
        found.push(rel);
      }
      if (found.length === 0) return { output: 'no files match', isError: false };
      return {
        output: found.join('\n') + (more ? `\n[first ${MAX_RESULTS} matches; narrow the pattern]` : ''),
        isError: false,
      };
    },
  };
}
