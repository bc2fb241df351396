/** bash_output and kill_shell: reading and stopping background shells. */
import type { AgentTool } from '../tool.js';
import { optionalInt, requireString } from '../tool.js';
import type { BackgroundShells, ShellInfo } from './shells.js';

const DEFAULT_READ_BYTES = 32 * 1024;

function status(info: ShellInfo): string {
  if (info.exitCode === null && info.signal === null) return 'running';
  return info.signal !== null ? `exited (killed by ${info.signal})` : `exited (code ${info.exitCode})`;
}

export function bashOutputTool(shells: BackgroundShells): AgentTool {
  return {
    effect: 'read',
    spec: {
      name: 'bash_output',
      description:
        'Returns the output a background shell produced since the last bash_output call for it, and whether it is still running.',
      inputSchema: {
        type: 'object',
        properties: {
          shell_id: { type: 'string', description: 'The id exec returned (sh_1, sh_2, ...).' },
          max_bytes: {
            type: 'integer',
            minimum: 1,
            description: `Most bytes to return (default ${DEFAULT_READ_BYTES}); older excess output is skipped.`,
          },
        },
        required: ['shell_id'],
      },
    },
    async run(input) {
      const id = requireString(input, 'shell_id');
      const { output, dropped, info } = await shells.readNew(
        id,
        optionalInt(input, 'max_bytes', 1) ?? DEFAULT_READ_BYTES,
      );
      const head = `[${id} ${status(info)}]${dropped > 0 ? ` [${dropped} earlier bytes skipped]` : ''}`;
      return { output: output === '' ? `${head} (no new output)` : `${head}\n${output}`, isError: false };
    },
  };
}

export function killShellTool(shells: BackgroundShells): AgentTool {
  return {
    effect: 'read',
    spec: {
      name: 'kill_shell',
      description: 'Stops a background shell and everything it started (SIGTERM, then SIGKILL).',
      inputSchema: {
        type: 'object',
        properties: { shell_id: { type: 'string', description: 'The id exec returned.' } },
        required: ['shell_id'],
      },
    },
    async run(input) {
      const id = requireString(input, 'shell_id');
      const info = await shells.kill(id);
      return { output: `${id} ${status(info)}`, isError: false };
    },
  };
}
