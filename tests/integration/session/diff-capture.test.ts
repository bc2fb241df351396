import { mkdir, readFile, rm, rename as move, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { MAX_DIFF_BYTES, TurnDiffCapture } from '../../../engine/session/index.js';
import { tempDir } from '../../helpers/temp.js';

const GIT_ENV = {
  GIT_AUTHOR_NAME: 't',
  GIT_AUTHOR_EMAIL: 't@example.com',
  GIT_COMMITTER_NAME: 't',
  GIT_COMMITTER_EMAIL: 't@example.com',
};
const git = (cwd: string, ...args: string[]) => execa('git', args, { cwd, env: GIT_ENV });

async function repo(
  files: Record<string, string> = { 'a.txt': 'one\ntwo\nthree\n', 'b.txt': 'bee\n' },
): Promise<string> {
  const dir = await tempDir('neo-diff-');
  await git(dir, 'init', '-q', '-b', 'main');
  for (const [path, content] of Object.entries(files)) {
    await mkdir(join(dir, path, '..'), { recursive: true });
    await writeFile(join(dir, path), content);
  }
  if (Object.keys(files).length > 0) {
    await git(dir, 'add', '-A');
    await git(dir, 'commit', '-q', '-m', 'init');
  }
  return dir;
}

describe('turn diff capture (git)', () => {
  it('reports modified, added, deleted and renamed files with counts; ignores files untracked before the turn', async () => {
    const dir = await repo({
      'a.txt': 'one\ntwo\nthree\n',
      'b.txt': 'bee\n',
      'old.txt': 'same content\nover\nlines\n',
    });
    await writeFile(join(dir, 'scratch.log'), 'was here before\n');
    const capture = await TurnDiffCapture.open(dir);
    await writeFile(join(dir, 'a.txt'), 'one\nTWO\nthree\nfour\n');
    await writeFile(join(dir, 'new.txt'), 'x\ny\n');
    await rm(join(dir, 'b.txt'));
    await git(dir, 'mv', 'old.txt', 'moved.txt');
    const diff = await capture.settle();
    expect(diff.source).toBe('git');
    expect(diff.files).toEqual([
      { path: 'a.txt', status: 'M', insertions: 2, deletions: 1 },
      { path: 'b.txt', status: 'D', insertions: 0, deletions: 1 },
      { path: 'moved.txt', status: 'R', oldPath: 'old.txt', insertions: 0, deletions: 0 },
      { path: 'new.txt', status: 'A', insertions: 2, deletions: 0 },
    ]);
    expect(diff.summaryLine).toBe('4 files changed (1 modified, 1 deleted, 1 renamed, 1 added), +4 -2');
    expect(diff.unifiedDiff).toContain('+TWO');
    expect(diff.unifiedDiff).toContain('+++ b/new.txt');
    expect(diff.truncated).toBeUndefined();
  });

  it('folds in a commit made mid-turn and opens the next turn from where this one ended', async () => {
    const dir = await repo();
    const capture = await TurnDiffCapture.open(dir);
    await writeFile(join(dir, 'a.txt'), 'changed\n');
    await git(dir, 'commit', '-qam', 'mid-turn');
    await writeFile(join(dir, 'c.txt'), 'new\n');
    const first = await capture.settle();
    expect(first.files.map((f) => `${f.status} ${f.path}`)).toEqual(['M a.txt', 'A c.txt']);
    await writeFile(join(dir, 'b.txt'), 'bee\nbuzz\n');
    const second = await capture.settle();
    expect(second.files).toEqual([{ path: 'b.txt', status: 'M', insertions: 1, deletions: 0 }]);
    const third = await capture.settle();
    expect(third).toMatchObject({ source: 'git', files: [], summaryLine: 'no files changed' });
  });

  it('reports only what this turn changed when files were already dirty or untracked before it', async () => {
    const dir = await repo({ 'a.txt': 'a\n', 'b.txt': 'b\n' });
    await writeFile(join(dir, 'a.txt'), 'a dirty before the turn\n');
    await writeFile(join(dir, 'b.txt'), 'b dirty before the turn\n');
    await writeFile(join(dir, 'notes.md'), 'untracked before\n');
    await writeFile(join(dir, 'gone.md'), 'untracked before\n');
    await writeFile(join(dir, 'kept.md'), 'untracked before\n');
    const capture = await TurnDiffCapture.open(dir);
    await writeFile(join(dir, 'b.txt'), 'b changed again in the turn\n');
    await writeFile(join(dir, 'notes.md'), 'edited in the turn\n');
    await rm(join(dir, 'gone.md'));
    const diff = await capture.settle();
    // Counted against each file's content at turn start, not against HEAD.
    expect(diff.files).toEqual([
      { path: 'b.txt', status: 'M', insertions: 1, deletions: 1 },
      { path: 'gone.md', status: 'D', insertions: 0, deletions: 1 },
      { path: 'notes.md', status: 'M', insertions: 1, deletions: 1 },
    ]);
    expect(diff.unifiedDiff).toContain('b changed again');
    expect(diff.unifiedDiff).not.toContain('a dirty before');
  });

  it('handles paths with spaces, newlines and non-ASCII characters', async () => {
    const dir = await repo({ 'with space.txt': 'a\n', 'ünïcödé ✓.txt': 'b\n' });
    const capture = await TurnDiffCapture.open(dir);
    await writeFile(join(dir, 'with space.txt'), 'a\nb\n');
    await writeFile(join(dir, 'ünïcödé ✓.txt'), 'c\n');
    await writeFile(join(dir, 'new\nline.txt'), 'n\n');
    await mkdir(join(dir, 'dir with space'));
    await writeFile(join(dir, 'dir with space', '日本.md'), '# hi\n');
    const diff = await capture.settle();
    expect(diff.files).toEqual([
      { path: 'dir with space/日本.md', status: 'A', insertions: 1, deletions: 0 },
      { path: 'new\nline.txt', status: 'A', insertions: 1, deletions: 0 },
      { path: 'with space.txt', status: 'M', insertions: 1, deletions: 0 },
      { path: 'ünïcödé ✓.txt', status: 'M', insertions: 1, deletions: 1 },
    ]);
    expect(diff.unifiedDiff).toContain('ünïcödé ✓.txt');
  });

  it('works in a repository without commits, and counts no lines for a binary file', async () => {
    const dir = await repo({});
    const capture = await TurnDiffCapture.open(dir);
    await writeFile(join(dir, 'first.txt'), 'hello\n');
    await writeFile(join(dir, 'blob.bin'), Buffer.from([0, 1, 2, 3, 0]));
    const diff = await capture.settle();
    expect(diff.files).toEqual([
      { path: 'blob.bin', status: 'A' },
      { path: 'first.txt', status: 'A', insertions: 1, deletions: 0 },
    ]);
  });

  it('caps the unified diff at 64 KB with truncated:true and a marker line', async () => {
    const dir = await repo();
    const capture = await TurnDiffCapture.open(dir);
    await writeFile(
      join(dir, 'a.txt'),
      Array.from({ length: 20_000 }, (_, i) => `line ${i} of a big change`).join('\n'),
    );
    await writeFile(join(dir, 'big-new.txt'), 'z\n'.repeat(50_000));
    const diff = await capture.settle();
    expect(diff.truncated).toBe(true);
    expect(Buffer.byteLength(diff.unifiedDiff!)).toBeLessThanOrEqual(MAX_DIFF_BYTES);
    expect(diff.unifiedDiff!).toMatch(/\n… diff truncated at 64 KB of \d+ KB\n$/);
    expect(diff.files.find((f) => f.path === 'big-new.txt')).toEqual({
      path: 'big-new.txt',
      status: 'A',
      insertions: 50_000,
      deletions: 0,
    });
  });

  it('falls back to edit tool events outside git, and to none without them', async () => {
    const dir = await tempDir('neo-nogit-');
    const capture = await TurnDiffCapture.open(dir, { editToolNames: ['write', 'edit'] });
    expect(capture.isGit).toBe(false);
    capture.noteToolUse({ name: 'write', input: { path: 'b.txt' } });
    capture.noteToolUse({ name: 'edit', input: { path: 'a.txt' } });
    capture.noteToolUse({ name: 'write', input: { path: 'b.txt' } });
    capture.noteToolUse({ name: 'run', input: { command: 'touch c.txt' } });
    expect(await capture.settle()).toEqual({
      source: 'tool-events',
      files: [
        { path: 'a.txt', status: 'M' },
        { path: 'b.txt', status: 'M' },
      ],
      summaryLine: '2 files edited (2 modified; from tool calls, no line counts)',
    });
    expect(await capture.settle()).toEqual({
      source: 'none',
      files: [],
      summaryLine: 'no diff captured (not a git work tree and no file-edit tool calls)',
    });
  });

  it('never throws when the work tree disappears mid-session, and says git was refused', async () => {
    const dir = await repo();
    const capture = await TurnDiffCapture.open(dir, { editToolNames: ['write'] });
    await move(join(dir, '.git'), join(dir, 'git-gone'));
    capture.noteToolUse({ name: 'write', input: { path: 'a.txt' } });
    const diff = await capture.settle();
    expect(diff.source).toBe('tool-events');
    expect(diff.summaryLine).toMatch(
      /^git diff refused: .*\.git now is missing or unreadable; neo recorded .*; 1 file edited/,
    );
    expect(await readFile(join(dir, 'a.txt'), 'utf8')).toBe('one\ntwo\nthree\n');
  });
});
