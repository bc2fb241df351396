/**
 * Who neo's commit in a run's worktree is by: the user's own git identity as the checkout's git
 * would use it (`user.name`/`user.email` of its repository config, else of the user's global
 * config), else neo's own, `neo <neo@localhost>`. neo's git calls read no global config
 * (execution/git-hardening.ts), so the global files are named one at a time; a config value is
 * only data here (a name, an address), never a program.
 */
import { homedir } from 'node:os';
import { join } from 'node:path';
import type { GitRepo } from '../../execution/index.js';
import { pathExists } from '../../util/path-exists.js';

export interface CommitIdentity {
  name: string;
  email: string;
}

/** neo's identity where the user has none. */
export const NEO_IDENTITY: CommitIdentity = { name: 'neo', email: 'neo@localhost' };

/** The identity for a commit the run makes, read from `checkout` (the user's repository). */
export async function commitIdentity(
  checkout: GitRepo | undefined,
  env: NodeJS.ProcessEnv = process.env,
): Promise<CommitIdentity> {
  if (checkout === undefined) return NEO_IDENTITY;
  const home = env.HOME !== undefined && env.HOME !== '' ? env.HOME : homedir();
  const xdg =
    env.XDG_CONFIG_HOME !== undefined && env.XDG_CONFIG_HOME !== '' ? env.XDG_CONFIG_HOME : join(home, '.config');
  // git reads ~/.gitconfig over $XDG_CONFIG_HOME/git/config; the repository's own config over both.
  const globals = [join(home, '.gitconfig'), join(xdg, 'git', 'config')];
  let name: string | undefined;
  let email: string | undefined;
  for (const global of [...(await existing(globals)), '/dev/null']) {
    const found = await read(checkout, global);
    name ??= found.get('user.name');
    email ??= found.get('user.email');
    if (name !== undefined && email !== undefined) break;
  }
  return { name: name ?? NEO_IDENTITY.name, email: email ?? NEO_IDENTITY.email };
}

/**
 * `user.name` and `user.email` as `git config --get` reads each (the last value wins), in one
 * call; an empty value is none.
 */
async function read(repo: GitRepo, global: string): Promise<Map<string, string>> {
  const run = await repo.run(['config', '-z', '--get-regexp', '^user\\.(name|email)$'], {
    okExitCodes: [0, 1],
    env: { GIT_CONFIG_GLOBAL: global },
  });
  const found = new Map<string, string>();
  if (!run.ok) return found;
  for (const record of run.stdout.split('\0')) {
    // `key\nvalue`, or the bare key of a key without a value (`--get` prints nothing for it).
    const cut = record.indexOf('\n');
    const key = cut < 0 ? record : record.slice(0, cut);
    const value = cut < 0 ? '' : record.slice(cut + 1).trim();
    if (value === '') found.delete(key);
    else found.set(key, value);
  }
  return found;
}

async function existing(files: readonly string[]): Promise<string[]> {
  const out: string[] = [];
  for (const file of files) if (await pathExists(file)) out.push(file);
  return out;
}
