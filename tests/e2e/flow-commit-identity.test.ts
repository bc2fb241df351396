/**
 * The commit a succeeded run makes in its worktree is the user's: authored and committed by the
 * git identity the checkout's git would use (its repository config, else the user's global
 * config), and by `neo <neo@localhost>` only where the user has none.
 */
import { execa } from 'execa';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runNeo } from '../helpers/cli.js';
import { tempDir, writeTree } from '../helpers/temp.js';

const FLOW = 'name: touch\nsteps:\n  - id: s\n    run: "echo new > created.txt"\n';

/** A committed repository, a home of its own (`gitconfig`: its global config) and a NEO_HOME. */
async function repoWith(options: { local?: [string, string]; gitconfig?: string }) {
  const root = await tempDir('neo-e2e-identity-');
  const repo = join(root, 'repo');
  const home = join(root, 'user');
  await writeTree(repo, { 'touch.flow.yaml': FLOW });
  await writeTree(home, options.gitconfig === undefined ? {} : { '.gitconfig': options.gitconfig });
  const env = { HOME: home, XDG_CONFIG_HOME: join(home, '.config'), GIT_CONFIG_NOSYSTEM: '1' };
  const git = (...args: string[]) => execa('git', args, { cwd: repo, env });
  await git('init', '-q', '-b', 'main');
  if (options.local !== undefined) {
    await git('config', 'user.name', options.local[0]);
    await git('config', 'user.email', options.local[1]);
  }
  await git('add', '-A');
  await git('-c', 'user.name=t', '-c', 'user.email=t@example.com', 'commit', '-qm', 'init');
  const run = async () => {
    const result = await runNeo(['flow', 'run', 'touch.flow.yaml'], {
      cwd: repo,
      env: { ...env, NEO_HOME: join(root, 'neo') },
    });
    expect(result.exitCode, result.stdout + result.stderr).toBe(0);
    const branch = /branch: (neo\/\S+)/.exec(result.stdout)![1]!;
    return (await git('log', '-1', '--format=%an <%ae> / %cn <%ce>', branch)).stdout;
  };
  return { run };
}

describe("a run's commit", () => {
  it("is the checkout's own git identity", async () => {
    const { run } = await repoWith({
      local: ['Ada Lovelace', 'ada@example.com'],
      gitconfig: '[user]\n\tname = Other\n\temail = other@example.com\n',
    });
    expect(await run()).toBe('Ada Lovelace <ada@example.com> / Ada Lovelace <ada@example.com>');
  });

  it("else the user's global git identity", async () => {
    const { run } = await repoWith({ gitconfig: '[user]\n\tname = Grace Hopper\n\temail = grace@example.com\n' });
    expect(await run()).toBe('Grace Hopper <grace@example.com> / Grace Hopper <grace@example.com>');
  });

  it("else neo's, said as such", async () => {
    const { run } = await repoWith({});
    expect(await run()).toBe('neo <neo@localhost> / neo <neo@localhost>');
  });
});
