import { sandboxOf, type ProcessResult, type RunningProcess } from '../../execution/index.js';
import type { SessionSandbox } from '../types.js';

/** Most command output kept in a tool_result; the tail is what explains a failure. */
export const OUTPUT_CAP = 64 * 1024;

/**
 * Starts `command` in `cwd` through the process module (its own group, killed as a tree): an
 * argv list runs directly, a string runs under /bin/sh -c (a script author's own text, never
 * agent output). stdin is closed so nothing waits on input.
 */
export function startCommand(
  command: string[] | string,
  options: { cwd: string; env: NodeJS.ProcessEnv; sandbox?: SessionSandbox },
): RunningProcess {
  const argv = typeof command === 'string' ? ['/bin/sh', '-c', command] : command;
  const box = options.sandbox ?? { kind: 'none' as const, binds: [], hide: [], network: true };
  return sandboxOf(box.kind).spawn(
    argv,
    { ...box, cwd: options.cwd, env: options.env },
    // No process bound: a script stands in for an agent CLI's tool, whose background job may
    // outlive its command (what the gate's final-tree check is tested against).
    { tailChars: OUTPUT_CAP, graceMs: 1_000, label: 'agent command' },
  );
}

/** Renders a result the way an agent's shell tool reports it: the output (interleaved tail) and how it ended. */
export function describeResult(result: ProcessResult): string {
  if (result.spawnError !== undefined) return `failed to start: ${result.spawnError}`;
  if (result.processLimited) return `${result.all}\n[killed: it hit its process limit]`;
  const trailer =
    result.exitCode !== undefined ? `[exit code ${result.exitCode}]` : `[killed by ${result.signal ?? 'a signal'}]`;
  const output = result.all;
  const body = output.endsWith('\n') || output === '' ? output : `${output}\n`;
  return `${body}${trailer}`;
}
