/**
 * The one way neo runs git: an argv array (never a shell), the hardened environment of
 * `git-hardening.ts`, stdin closed, spawned like every other process (`spawnProcess`: its own
 * group, in the live registry), and a result that is never thrown.
 */
import { DIFF_COMMANDS, gitEnvironment } from './git-hardening.js';
import { spawnProcess } from './spawn.js';

/** The outcome of one git run; never thrown. */
export interface GitRun {
  ok: boolean;
  exitCode: number | undefined;
  /** Stdout, at most `keepBytes` of it. */
  stdout: string;
  /** The last lines of stderr. */
  stderr: string;
  /** Stdout was longer than `keepBytes` (`bytes` says how long). */
  truncated: boolean;
  /** Stdout's whole length in bytes, kept or not. */
  bytes: number;
}

export interface GitCallOptions {
  /** Exit codes that count as success (default [0]). */
  okExitCodes?: readonly number[];
  /** Keep at most this many bytes of stdout; the rest is counted, not kept (default 64 MB). */
  keepBytes?: number;
  /** Config overrides beyond the hardening (the repository's filter drivers). */
  overrides?: ReadonlyArray<readonly [string, string]>;
  /** GIT_* variables of this call (GIT_DIR, GIT_INDEX_FILE, GIT_CEILING_DIRECTORIES, …). */
  env?: Readonly<Record<string, string>>;
  /** Kill the call (its process group) past this many milliseconds: a remote that stops answering. */
  timeoutMs?: number;
}

const STDERR_KEEP = 4096;

/** Runs `git <args>` in `cwd`. A missing git, a failure or a killed run come back as `ok: false`. */
export async function runGit(cwd: string, args: readonly string[], options: GitCallOptions = {}): Promise<GitRun> {
  const argv = DIFF_COMMANDS.has(args[0] ?? '') ? [args[0]!, '--no-ext-diff', '--no-textconv', ...args.slice(1)] : args;
  const keep = options.keepBytes ?? 64 * 1024 * 1024;
  const child = spawnProcess(['git', ...argv], {
    cwd,
    env: gitEnvironment(options.overrides ?? [], options.env),
    output: 'stream',
    label: `git ${args[0] ?? ''}`,
    ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }),
  });
  const kept: Buffer[] = [];
  let keptBytes = 0;
  let bytes = 0;
  let stderr = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    bytes += chunk.length;
    if (keptBytes >= keep) return;
    const part = keptBytes + chunk.length > keep ? chunk.subarray(0, keep - keptBytes) : chunk;
    kept.push(part);
    keptBytes += part.length;
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString('utf8')).slice(-STDERR_KEEP);
  });
  const result = await child.result;
  return {
    ok: result.exitCode !== undefined && (options.okExitCodes ?? [0]).includes(result.exitCode),
    exitCode: result.exitCode,
    stdout: Buffer.concat(kept).toString('utf8'),
    stderr: (result.spawnError ?? stderr).trim(),
    truncated: bytes > keptBytes,
    bytes,
  };
}

/** A failed run's reason in one line (its last stderr lines, else its exit code). */
export function gitFailure(args: readonly string[], run: GitRun): string {
  const detail = run.stderr.split('\n').slice(-3).join(' ').trim();
  return `git ${args.join(' ')} failed: ${detail || `exit ${run.exitCode ?? 'unknown'}`}`;
}
