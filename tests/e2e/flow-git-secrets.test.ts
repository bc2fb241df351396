/**
 * A repository's git config may hold credentials (a token in a remote's URL, an `http.extraheader`
 * with an Authorization header). Git needs the config readable inside a sandbox, so every
 * confined process sees a copy with those values taken out: git still works, the token is not
 * there to be read. Through the neo binary, in a worktree and in place.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runNeo } from '../helpers/cli.js';
import { tempDir, writeTree } from '../helpers/temp.js';
import { git } from './flow-helpers.js';

const TOKEN = 'ghp_s3cr3tT0kenValue';
const HEADER = 'QmFzaWMgc2VjcmV0';

/** Records what git and a plain read see of the repository's config, inside the step's workspace. */
const PEEK =
  'git config --get remote.origin.url > seen.txt; cat "$(git rev-parse --git-common-dir)/config" >> seen.txt; git status --porcelain >/dev/null && echo git-works >> seen.txt';

async function project() {
  const root = await tempDir('neo-e2e-gitsecrets-');
  const repo = join(root, 'repo');
  const home = join(root, 'neo-home');
  const plan = `name: peek\nsandbox: bwrap\nsteps:\n  - id: a\n    run: '${PEEK.replace(/'/g, "''")}'\n`;
  await writeTree(repo, { 'README.md': 'hello\n', 'plan.yaml': plan, '.gitignore': 'seen.txt\n' });
  await git(repo, 'init', '-q', '-b', 'main');
  await git(repo, 'remote', 'add', 'origin', `https://octo:${TOKEN}@example.com/octo/repo.git`);
  await git(repo, 'config', 'http.https://example.com/.extraheader', `AUTHORIZATION: basic ${HEADER}`);
  await git(repo, 'add', '-A');
  await git(repo, '-c', 'user.name=t', '-c', 'user.email=t@example.com', 'commit', '-qm', 'init');
  const neo = (args: string[]) => runNeo(args, { cwd: repo, env: { NEO_HOME: home } });
  return { repo, neo };
}

const summary = (stdout: string) =>
  JSON.parse(stdout.trim().split('\n').at(-1)!) as { status: string; exitCode: number; workspace: { root: string } };

describe("a sandbox never shows the credentials in a repository's git config", () => {
  it.each(['worktree', 'inplace'])(
    '%s: git works, the remote is there, the token and the header are not',
    async (isolation) => {
      const { repo, neo } = await project();
      const result = await neo(['flow', 'run', 'plan.yaml', '--isolation', isolation, '--json']);
      const out = summary(result.stdout);
      expect(out, result.stdout + result.stderr).toMatchObject({ status: 'succeeded', exitCode: 0 });
      const seen = readFileSync(join(out.workspace.root, 'seen.txt'), 'utf8');
      expect(seen).toContain('example.com/octo/repo.git');
      expect(seen).toContain('git-works');
      expect(seen).not.toContain(TOKEN);
      expect(seen).not.toContain(HEADER);
      // The user's own config is untouched.
      expect(readFileSync(join(repo, '.git', 'config'), 'utf8')).toContain(TOKEN);
    },
  );
});
