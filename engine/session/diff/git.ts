import { stat } from 'node:fs/promises';
import { dirname, join } from 'node:path';

/** The outcome of one git run; never thrown. */
export interface GitRun {
  ok: boolean;
  exitCode: number | undefined;
  stdout: string;
  /** Output was cut at `maxBuffer`. */
  truncated: boolean;
}

/**
 * Runs git with an argv array (never a shell), in `cwd`. Never throws: a missing git, a
 * non-repository or a killed run all come back as `ok: false`. Optional locks are off so a
 * `status` never contends with the agent's own git use; paths are never quoted.
 */
export async function runGit(
  cwd: string,
  args: readonly string[],
  options: { okExitCodes?: readonly number[]; maxBuffer?: number } = {},
): Promise<GitRun> {
  try {
    // Loaded on first use: a session outside git never pays for execa.
    const { execa } = await import('execa');
    const result = await execa('git', ['-c', 'core.quotepath=off', ...args], {
      cwd,
      reject: false,
      stripFinalNewline: false,
      maxBuffer: options.maxBuffer ?? 64 * 1024 * 1024,
      env: { GIT_OPTIONAL_LOCKS: '0', GIT_TERMINAL_PROMPT: '0', LC_ALL: 'C' },
      stdin: 'ignore',
    });
    const ok = result.exitCode !== undefined && (options.okExitCodes ?? [0]).includes(result.exitCode);
    const stdout = typeof result.stdout === 'string' ? result.stdout : '';
    return {
      ok: ok || result.isMaxBuffer === true,
      exitCode: result.exitCode,
      stdout,
      truncated: result.isMaxBuffer === true,
    };
  } catch {
    return { ok: false, exitCode: undefined, stdout: '', truncated: false };
  }
}

/**
 * Whether `cwd` is inside a git work tree, by looking for `.git` upwards (a folder, or the file a
 * worktree or submodule has). Cheap: no process is spawned for a folder outside git.
 */
export async function insideGitTree(cwd: string): Promise<boolean> {
  let dir = cwd;
  for (;;) {
    if (
      await stat(join(dir, '.git')).then(
        () => true,
        () => false,
      )
    )
      return true;
    const parent = dirname(dir);
    if (parent === dir) return false;
    dir = parent;
  }
}
