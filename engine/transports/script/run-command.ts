import { execa } from 'execa';
import { signalGroup, terminateGroup } from '../shared/process-group.js';

/** Most command output kept in a tool_result; the tail is what explains a failure. */
export const OUTPUT_CAP = 64 * 1024;

/** How a command ended. */
export interface CommandResult {
  exitCode: number | undefined;
  signal: string | undefined;
  /** stdout and stderr interleaved, capped at OUTPUT_CAP (the tail is kept). */
  output: string;
  /** Spawning failed (ENOENT, EACCES …). */
  spawnError: string | undefined;
}

/** A running command: its own process group, killed as a whole. */
export interface RunningCommand {
  readonly pid: number | undefined;
  readonly done: Promise<CommandResult>;
  /** SIGTERM the group, SIGKILL what is left after `graceMs`; resolves when nothing of it runs. */
  kill(graceMs?: number): Promise<void>;
}

const liveGroups = new Set<number>();
let exitHook = false;

/**
 * Starts `command` in `cwd`: an argv list runs directly, a string runs under /bin/sh -c (a
 * script author's own text, never agent output). stdin is closed so nothing waits on input.
 */
export function startCommand(
  command: string[] | string,
  options: { cwd: string; env: NodeJS.ProcessEnv },
): RunningCommand {
  const [file, ...args] = typeof command === 'string' ? ['/bin/sh', '-c', command] : command;
  const child = execa(file!, args, {
    cwd: options.cwd,
    env: options.env,
    extendEnv: false,
    detached: true,
    cleanup: false,
    reject: false,
    stdin: 'ignore',
    all: true,
    stripFinalNewline: false,
    maxBuffer: 16 * 1024 * 1024,
  });
  const pid = child.pid;
  if (pid !== undefined) track(pid);
  const done = child.then((result) => {
    if (pid !== undefined) liveGroups.delete(pid);
    const spawnFailed = result.failed && result.exitCode === undefined && result.signal === undefined;
    return {
      exitCode: result.exitCode,
      signal: result.signal,
      output: capTail(typeof result.all === 'string' ? result.all : ''),
      spawnError: spawnFailed
        ? result.cause instanceof Error
          ? result.cause.message
          : result.shortMessage
        : undefined,
    };
  });
  return {
    pid,
    done,
    async kill(graceMs = 1_000) {
      if (pid === undefined) return;
      await terminateGroup(pid, graceMs);
      // The leader is gone; wait for execa to collect its exit so nothing settles later.
      await done;
    },
  };
}

/** Renders a result the way an agent's shell tool reports it. */
export function describeResult(result: CommandResult): string {
  if (result.spawnError !== undefined) return `failed to start: ${result.spawnError}`;
  const trailer =
    result.exitCode !== undefined ? `[exit code ${result.exitCode}]` : `[killed by ${result.signal ?? 'a signal'}]`;
  const body = result.output.endsWith('\n') || result.output === '' ? result.output : `${result.output}\n`;
  return `${body}${trailer}`;
}

function capTail(text: string): string {
  if (text.length <= OUTPUT_CAP) return text;
  return `[… ${text.length - OUTPUT_CAP} characters cut …]\n${text.slice(-OUTPUT_CAP)}`;
}

/** Commands still running when neo exits are killed with it, never left behind. */
function track(pgid: number): void {
  liveGroups.add(pgid);
  if (exitHook) return;
  exitHook = true;
  process.once('exit', () => {
    for (const group of liveGroups) signalGroup(group, 'SIGKILL');
  });
}
