import { mkdir, readdir, rename as move, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { TurnDiffCapture } from '../../../engine/session/index.js';
import { tempDir } from '../../helpers/temp.js';

const GIT_ENV = {
  GIT_AUTHOR_NAME: 't',
  GIT_AUTHOR_EMAIL: 't@example.com',
  GIT_COMMITTER_NAME: 't',
  GIT_COMMITTER_EMAIL: 't@example.com',
};
const git = (cwd: string, ...args: string[]) => execa('git', args, { cwd, env: GIT_ENV });

async function repo(dir?: string): Promise<string> {
  const root = dir ?? (await tempDir('neo-contain-'));
  await mkdir(root, { recursive: true });
  await git(root, 'init', '-q', '-b', 'main');
  await writeFile(join(root, 'a.txt'), 'one\n');
  await writeFile(join(root, 'b.txt'), 'bee\n');
  await git(root, 'add', '-A');
  await git(root, 'commit', '-q', '-m', 'init');
  return root;
}

/** A command that leaves a file named `name` in `dir` if anything ever runs it. */
const plant = (dir: string, name: string) => `touch '${join(dir, name)}'; cat`;

describe('turn diff capture: git that an agent wrote can never run a command', () => {
  it('ignores fsmonitor, filter and diff drivers an agent planted in .git/config and .gitattributes', async () => {
    const dir = await repo();
    const trap = await tempDir('neo-trap-');
    const capture = await TurnDiffCapture.open(dir);
    // What an agent at full posture (or a CLI that writes without asking) can do mid-turn.
    await git(dir, 'config', 'core.fsmonitor', plant(trap, 'fsmonitor'));
    await git(dir, 'config', 'filter.evil.clean', plant(trap, 'clean'));
    await git(dir, 'config', 'filter.evil.process', plant(trap, 'process'));
    await git(dir, 'config', 'diff.evil.command', plant(trap, 'diff-command'));
    await git(dir, 'config', 'diff.evil.textconv', plant(trap, 'textconv'));
    await git(dir, 'config', 'diff.external', plant(trap, 'external'));
    await git(dir, 'config', 'core.pager', plant(trap, 'pager'));
    await mkdir(join(dir, '.git', 'hooks'), { recursive: true });
    await writeFile(join(dir, '.gitattributes'), '* filter=evil diff=evil\n');
    await writeFile(join(dir, 'a.txt'), 'one\ntwo\n');
    const diff = await capture.settle();
    expect(await readdir(trap)).toEqual([]);
    expect(diff.source).toBe('git');
    expect(diff.files.map((f) => `${f.status} ${f.path}`)).toEqual(['A .gitattributes', 'M a.txt']);
    expect(diff.unifiedDiff).toContain('+two');
  });

  it('never follows a .git file rewritten to point at a folder the agent wrote, and says so', async () => {
    const main = await repo();
    const dir = join(await tempDir('neo-wt-'), 'wt');
    await git(main, 'worktree', 'add', '-q', dir);
    const trap = await tempDir('neo-trap-');
    const capture = await TurnDiffCapture.open(dir);
    expect(capture.isGit).toBe(true);
    await mkdir(join(dir, 'evil', 'objects'), { recursive: true });
    await mkdir(join(dir, 'evil', 'refs'), { recursive: true });
    await writeFile(join(dir, 'evil', 'HEAD'), 'ref: refs/heads/main\n');
    await writeFile(join(dir, 'evil', 'config'), `[core]\n\tfsmonitor = "${plant(trap, 'fsmonitor')}"\n`);
    await writeFile(join(dir, '.git'), 'gitdir: evil\n');
    const diff = await capture.settle();
    expect(await readdir(trap)).toEqual([]);
    expect(diff.summaryLine).toMatch(/^git diff refused: .*\.git now points at .*evil; neo recorded /);
    expect(diff.files).toEqual([]);
  });

  it('refuses a work tree whose .git already points inside it when the session opens', async () => {
    const main = await repo();
    const dir = join(await tempDir('neo-wt-'), 'wt');
    await git(main, 'worktree', 'add', '-q', dir);
    const trap = await tempDir('neo-trap-');
    const gitDir = (await git(dir, 'rev-parse', '--absolute-git-dir')).stdout;
    await execa('cp', ['-r', gitDir, join(dir, 'evil')]);
    await writeFile(join(dir, 'evil', 'commondir'), `${join(main, '.git')}\n`);
    await writeFile(join(dir, 'evil', 'config.worktree'), `[core]\n\tfsmonitor = "${plant(trap, 'fsmonitor')}"\n`);
    await writeFile(join(dir, '.git'), 'gitdir: evil\n');
    const capture = await TurnDiffCapture.open(dir);
    await writeFile(join(dir, 'a.txt'), 'changed\n');
    const diff = await capture.settle();
    expect(await readdir(trap)).toEqual([]);
    expect(capture.isGit).toBe(false);
    expect(diff.summaryLine).toMatch(/^git diff refused: .*evil, a folder inside the work tree itself/);
  });
});

describe('turn diff capture: neo home is a wall', () => {
  it('a folder under a NEO_HOME that sits in a git repository is not that repository', async () => {
    const dotfiles = await repo();
    const home = join(dotfiles, '.neo');
    const copy = join(home, 'workspaces', 'run-1');
    await mkdir(copy, { recursive: true });
    await writeFile(join(copy, 'x.txt'), 'x\n');
    const capture = await TurnDiffCapture.open(copy, { home, editToolNames: ['write'] });
    expect(capture.isGit).toBe(false);
    await writeFile(join(copy, 'x.txt'), 'y\n');
    await writeFile(join(home, 'runs.log'), 'neo writing its own records\n');
    capture.noteToolUse({ name: 'write', input: { path: join(copy, 'x.txt') } });
    expect(await capture.settle()).toMatchObject({ source: 'tool-events', files: [{ path: 'x.txt', status: 'M' }] });
  });

  it("a session in a repository that holds NEO_HOME never counts neo's own files", async () => {
    const dir = await repo();
    const home = join(dir, '.neo');
    const capture = await TurnDiffCapture.open(dir, { home });
    await mkdir(join(home, 'runs', 'r1'), { recursive: true });
    await writeFile(join(home, 'runs', 'r1', 'events.jsonl'), '{}\n');
    await writeFile(join(dir, 'a.txt'), 'one\ntwo\n');
    const diff = await capture.settle();
    expect(diff.files.map((f) => f.path)).toEqual(['a.txt']);
    expect(diff.unifiedDiff).not.toContain('.neo');
  });
});

describe('turn diff capture: what changed, exactly', () => {
  it('a plain mv of a tracked or an untracked file is a rename, not a delete and an add', async () => {
    const dir = await repo();
    await writeFile(join(dir, 'notes.md'), 'untracked\nnotes\nhere\n');
    const capture = await TurnDiffCapture.open(dir);
    await move(join(dir, 'a.txt'), join(dir, 'moved-a.txt'));
    await move(join(dir, 'notes.md'), join(dir, 'moved-notes.md'));
    const diff = await capture.settle();
    expect(diff.files).toEqual([
      { path: 'moved-a.txt', oldPath: 'a.txt', status: 'R', insertions: 0, deletions: 0 },
      { path: 'moved-notes.md', oldPath: 'notes.md', status: 'R', insertions: 0, deletions: 0 },
    ]);
  });

  it('sees a same-size edit made in the same second the index was written (racily clean)', async () => {
    const dir = await repo();
    // Start just after a second boundary, so the index write and the edit share their second.
    await sleep(1000 - (Date.now() % 1000) + 20);
    await writeFile(join(dir, 'a.txt'), 'uno\n');
    await git(dir, 'add', 'a.txt');
    const capture = await TurnDiffCapture.open(dir);
    await writeFile(join(dir, 'a.txt'), 'dos\n');
    // The turn ends in a later second: a snapshot index stamped now would trust the stale stat.
    await sleep(1000 - (Date.now() % 1000) + 20);
    const diff = await capture.settle();
    expect(diff.files).toEqual([{ path: 'a.txt', status: 'M', insertions: 1, deletions: 1 }]);
  });

  it('an edit undone within the turn is no change', async () => {
    const dir = await repo();
    const capture = await TurnDiffCapture.open(dir);
    await writeFile(join(dir, 'a.txt'), 'changed\n');
    await writeFile(join(dir, 'a.txt'), 'one\n');
    await writeFile(join(dir, 'tmp.txt'), 'scratch\n');
    await execa('rm', [join(dir, 'tmp.txt')]);
    expect(await capture.settle()).toMatchObject({ source: 'git', files: [], summaryLine: 'no files changed' });
  });

  it("the truncation marker gives the whole diff's size", async () => {
    const dir = await repo();
    const capture = await TurnDiffCapture.open(dir);
    const content = Array.from({ length: 5000 }, (_, i) => `line ${i} ${'x'.repeat(16)}\n`).join('');
    await writeFile(join(dir, 'big.txt'), content);
    const diff = await capture.settle();
    expect(diff.truncated).toBe(true);
    // The patch is the content with a `+` per line and a few header lines: about 135 KB, not 65.
    const total = Number(/of (\d+) KB\n$/.exec(diff.unifiedDiff!)?.[1]);
    expect(Math.abs(total - Math.ceil((content.length + 5000) / 1024))).toBeLessThanOrEqual(1);
  });

  it('outside git, edited paths are workspace-relative whichever way the CLI named them', async () => {
    const dir = await tempDir('neo-nogit-');
    const capture = await TurnDiffCapture.open(dir, { editToolNames: ['edit', 'apply_patch'] });
    capture.noteToolUse({ name: 'edit', input: { path: join(dir, 'src', 'a.ts') } });
    capture.noteToolUse({ name: 'edit', input: { file_path: './src/../b.ts' } });
    // An adapter that read the paths from its CLI's own shape (a raw patch, ACP locations).
    capture.noteToolUse({ name: 'apply_patch', input: '*** Begin Patch', paths: [join(dir, 'c.ts')] });
    capture.noteToolUse({ name: 'edit', input: { path: '/elsewhere/d.ts' } });
    expect((await capture.settle()).files.map((f) => f.path)).toEqual(['/elsewhere/d.ts', 'b.ts', 'c.ts', 'src/a.ts']);
  });
});
