import { execa } from 'execa';
import { chmod, readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { GitRepo } from '../../../engine/execution/index.js';
import { tempDir } from '../../helpers/temp.js';

/**
 * The filter drivers a repository's config defines are blanked for neo's git; a config that
 * names none (and includes nothing) is read by neo instead of listed by a `git config` process.
 * Every spelling git accepts for a driver or an include must still reach the listing.
 */
let shim: string;
let log: string;
let savedPath: string | undefined;

beforeEach(async () => {
  // A `git` first on PATH that logs its arguments, then runs the real one.
  shim = await tempDir('neo-git-shim-');
  log = join(shim, 'calls.log');
  const real = (await execa('sh', ['-c', 'command -v git'])).stdout.trim();
  await writeFile(join(shim, 'git'), `#!/bin/sh\necho "$*" >> '${log}'\nexec '${real}' "$@"\n`);
  await chmod(join(shim, 'git'), 0o755);
  savedPath = process.env.PATH;
  process.env.PATH = `${shim}:${savedPath ?? ''}`;
});

afterEach(() => {
  process.env.PATH = savedPath;
});

async function repoWith(config: string, extra: Record<string, string> = {}): Promise<{ dir: string; trap: string }> {
  const dir = await tempDir('neo-filter-');
  const trap = await tempDir('neo-trap-');
  await execa('git', ['init', '-q', '-b', 'main'], { cwd: dir });
  await writeFile(join(dir, '.gitattributes'), '* filter=evil\n');
  await writeFile(join(dir, 'file.txt'), 'original\n');
  const configFile = join(dir, '.git', 'config');
  await writeFile(configFile, (await readFile(configFile, 'utf8')) + config.replaceAll('TRAP', trap));
  for (const [name, text] of Object.entries(extra)) await writeFile(join(dir, name), text.replaceAll('TRAP', trap));
  return { dir, trap };
}

async function calls(): Promise<string[]> {
  return (await readFile(log, 'utf8').catch(() => '')).split('\n').filter((line) => line !== '');
}

const EVIL = '\tclean = touch TRAP/clean; cat\n\tprocess = touch TRAP/process\n';

describe("neo's git blanks the repository's filter drivers", () => {
  it.each([
    ['[filter "evil"]', `[filter "evil"]\n${EVIL}`],
    ['upper case', `[FILTER "evil"]\n${EVIL}`],
    ['the old subsection spelling', `[filter.evil]\n${EVIL}`],
    ['after another section on one line', `[user][Filter "evil"]\n${EVIL}`],
  ])('a driver defined as %s runs nothing', async (_name, config) => {
    const { dir, trap } = await repoWith(config);
    const repo = (await GitRepo.discover(dir))!;
    expect((await repo.run(['add', '-A'])).ok).toBe(true);
    expect(await readdir(trap)).toEqual([]);
    expect((await calls()).some((line) => line.startsWith('config -z --get-regexp'))).toBe(true);
  });

  it('a driver defined in an included file runs nothing', async () => {
    const { dir, trap } = await repoWith('[include]\n\tpath = ../evil.config\n', {
      'evil.config': `[filter "evil"]\n${EVIL}`,
    });
    const repo = (await GitRepo.discover(dir))!;
    expect((await repo.run(['add', '-A'])).ok).toBe(true);
    expect(await readdir(trap)).toEqual([]);
  });

  it("a driver defined in the work tree's config.worktree runs nothing", async () => {
    const { dir, trap } = await repoWith('[extensions]\n\tworktreeConfig = true\n');
    await writeFile(join(dir, '.git', 'config.worktree'), `[filter "evil"]\n${EVIL}`.replaceAll('TRAP', trap));
    const repo = (await GitRepo.discover(dir))!;
    expect((await repo.run(['add', '-A'])).ok).toBe(true);
    expect(await readdir(trap)).toEqual([]);
  });

  it('a config that names no driver and includes nothing is read without a git config process', async () => {
    const { dir } = await repoWith('[user]\n\tname = someone\n');
    const repo = (await GitRepo.discover(dir))!;
    expect((await repo.run(['add', '-A'])).ok).toBe(true);
    expect((await repo.run(['status', '--porcelain'])).ok).toBe(true);
    const made = await calls();
    expect(made.some((line) => line.startsWith('add -A'))).toBe(true);
    expect(made.filter((line) => line.startsWith('config'))).toEqual([]);
  });
});
