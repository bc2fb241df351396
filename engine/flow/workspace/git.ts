import { NeoError } from '../../util/errors.js';

/** Runs git with an argv array (never a shell string); returns trimmed stdout or throws FLOW_GIT. */
export async function git(cwd: string, args: readonly string[]): Promise<string> {
  const { execa } = await import('execa');
  const result = await execa('git', args, { cwd, reject: false, stdin: 'ignore', env: { GIT_TERMINAL_PROMPT: '0' } });
  if (result.exitCode !== 0) {
    const detail = String(result.stderr || result.stdout || result.shortMessage)
      .trim()
      .split('\n')
      .slice(-3)
      .join(' ');
    throw new NeoError('FLOW_GIT', `git ${args.join(' ')} failed: ${detail}`);
  }
  return String(result.stdout).trim();
}

/** Like {@link git}, but undefined instead of an error. */
export async function gitMaybe(cwd: string, args: readonly string[]): Promise<string | undefined> {
  try {
    return await git(cwd, args);
  } catch {
    return undefined;
  }
}

/** The repository root above `dir` when it is inside a git work tree with at least one commit. */
export async function gitRepoRoot(dir: string): Promise<string | undefined> {
  const root = await gitMaybe(dir, ['rev-parse', '--show-toplevel']);
  if (root === undefined) return undefined;
  const head = await gitMaybe(dir, ['rev-parse', '--verify', '--quiet', 'HEAD^{commit}']);
  return head === undefined || head === '' ? undefined : root;
}
