/**
 * exec: runs a shell command in its own process group, in the working directory and the
 * session's sandbox, with a timeout that kills the whole group. With `run_in_background` it
 * returns a shell id at once instead (see bash_output and kill_shell). The command is the model's
 * own shell text, handed to the shell as one argv element — exactly what the tool is for — and
 * never spliced into another.
 */
import { defined } from '../../util/defined.js';
import { formatMs } from '../errors.js';
import type { AgentTool } from '../tool.js';
import { optionalBool, optionalInt, requireString } from '../tool.js';
import { CappedCollector } from './capped-collector.js';
import { commandShell, spawnCommand, type CommandSandbox } from './shell-env.js';
import type { BackgroundShells } from './shells.js';

const MAX_TIMEOUT_MS = 10 * 60_000;
const COLLECT_BYTES = 256 * 1024;

export interface ExecToolOptions {
  cwd: string;
  env: NodeJS.ProcessEnv;
  shells: BackgroundShells;
  /** The default foreground timeout. */
  timeoutMs: number;
  /** Where commands run (the session's sandbox); absent: unconfined. */
  sandbox?: CommandSandbox;
}

export function execTool(options: ExecToolOptions): AgentTool {
  return {
    effect: 'exec',
    spec: {
      name: 'exec',
      description: `Runs a shell command (bash) in the working directory and returns its combined stdout and stderr and exit code. Foreground commands are killed, with everything they started, after timeout_ms (default ${formatMs(options.timeoutMs)}, at most 10m). Set run_in_background for servers and long jobs: it returns a shell id at once; read new output with bash_output and stop it with kill_shell.`,
      inputSchema: {
        type: 'object',
        properties: {
          command: { type: 'string', description: 'The shell command.' },
          timeout_ms: { type: 'integer', minimum: 1, description: 'Foreground timeout in milliseconds.' },
          run_in_background: { type: 'boolean', description: 'Start it in the background and return a shell id.' },
        },
        required: ['command'],
      },
    },
    async run(input, context) {
      const command = requireString(input, 'command');
      if (optionalBool(input, 'run_in_background') === true) {
        const shell = await options.shells.start(command, {
          cwd: options.cwd,
          env: options.env,
          ...defined({ sandbox: options.sandbox }),
        });
        return {
          output: `started background shell ${shell.id} (pid ${shell.pid}); read its output with bash_output {"shell_id":"${shell.id}"}, stop it with kill_shell`,
          isError: false,
        };
      }
      const timeoutMs = Math.min(optionalInt(input, 'timeout_ms', 1) ?? options.timeoutMs, MAX_TIMEOUT_MS);
      return runForeground(command, options, timeoutMs, context.signal);
    },
  };
}

async function runForeground(
  command: string,
  options: ExecToolOptions,
  timeoutMs: number,
  signal: AbortSignal,
): Promise<{ output: string; isError: boolean }> {
  // `exec 2>&1` first: stderr joins stdout in the shell itself, so the two stay in write order
  // (two pipes merged here would interleave by arrival instead).
  const collected = new CappedCollector(COLLECT_BYTES);
  const where = { cwd: options.cwd, env: options.env, timeoutMs, ...defined({ sandbox: options.sandbox }) };
  const result = await spawnCommand([commandShell(options.env), '-c', `exec 2>&1\n${command}`], where, {
    onOutput: (chunk) => collected.push(chunk),
    // The collector keeps what the model sees; the result's own tails are not read.
    tailChars: 1024,
    signal,
    // A leftover `cmd &` in the group would hold the output pipe open forever: once the shell
    // itself exits, whatever it left behind is killed.
    killLeftovers: true,
    label: 'exec',
  }).result;
  const output = collected.text().replace(/\n$/, '');
  if (result.isCanceled)
    return { output: `${output}\n[interrupted; the process group was killed]`.trimStart(), isError: true };
  if (result.timedOut)
    return {
      output: `${output}\n[timed out after ${formatMs(timeoutMs)}; the process group was killed]`.trimStart(),
      isError: true,
    };
  if (result.exitCode === undefined)
    return {
      output:
        `${output}\n[${result.signal ? `killed by ${result.signal}` : (result.spawnError ?? 'failed to run')}]`.trimStart(),
      isError: true,
    };
  const code = result.exitCode;
  if (code === 0) return { output: output === '' ? '(no output)' : output, isError: false };
  return { output: `${output}\n[exit code ${code}]`.trimStart(), isError: true };
}
