import { describe, expect, it } from 'vitest';
import { parseNameStatusZ, parseNumstatZ, parsePorcelainZ } from '../../../engine/execution/index.js';
import { capUnifiedDiff, editPathsOf, summaryLine } from '../../../engine/session/index.js';

describe('git -z parsers', () => {
  it('parses porcelain status with renames and odd paths', () => {
    expect(parsePorcelainZ('?? a b.txt\0R  new\nname.txt\0old.txt\0 M ü.txt\0')).toEqual([
      { code: '??', path: 'a b.txt' },
      { code: 'R ', path: 'new\nname.txt', origPath: 'old.txt' },
      { code: ' M', path: 'ü.txt' },
    ]);
  });

  it('parses numstat with renames and binary files', () => {
    expect(parseNumstatZ('3\t1\ta.txt\0' + '0\t0\t\0old name.txt\0new name.txt\0' + '-\t-\timg.png\0')).toEqual([
      { path: 'a.txt', insertions: 3, deletions: 1 },
      { path: 'new name.txt', oldPath: 'old name.txt', insertions: 0, deletions: 0 },
      { path: 'img.png' },
    ]);
  });

  it('parses name-status into A/M/D/R', () => {
    expect(parseNameStatusZ('M\0a.txt\0R087\0old\0new\0D\0gone\0T\0link\0A\0added\0C100\0src\0copy\0')).toEqual([
      { status: 'M', path: 'a.txt' },
      { status: 'R', path: 'new', oldPath: 'old' },
      { status: 'D', path: 'gone' },
      { status: 'M', path: 'link' },
      { status: 'A', path: 'added' },
      { status: 'A', path: 'copy' },
    ]);
  });
});

describe('diff summary and cap', () => {
  it('summarizes per source', () => {
    expect(
      summaryLine('git', [
        { path: 'a', status: 'A', insertions: 2, deletions: 0 },
        { path: 'b', status: 'M', insertions: 1, deletions: 3 },
      ]),
    ).toBe('2 files changed (1 added, 1 modified), +3 -3');
    expect(summaryLine('git', [])).toBe('no files changed');
    expect(summaryLine('tool-events', [{ path: 'a', status: 'M' }])).toBe(
      '1 file edited (1 modified; from tool calls, no line counts)',
    );
    expect(summaryLine('none', [])).toBe('no diff captured (not a git work tree and no file-edit tool calls)');
  });

  it('caps at a line boundary with a marker line, multi-byte safe', () => {
    const text = Array.from({ length: 100 }, (_, i) => `+line ${i} ✓✓✓`).join('\n');
    const capped = capUnifiedDiff(text, { max: 500 });
    expect(capped.truncated).toBe(true);
    expect(Buffer.byteLength(capped.text)).toBeLessThanOrEqual(500);
    expect(capped.text).toMatch(/\n… diff truncated at 0 KB of 2 KB\n$/);
    expect(
      capped.text
        .split('\n')
        .slice(0, -2)
        .every((l) => /^\+line \d+ ✓✓✓$/.test(l)),
    ).toBe(true);
    expect(capUnifiedDiff('small')).toEqual({ text: 'small', truncated: false });
  });

  it('takes edit paths only from the descriptor editToolNames', () => {
    expect(editPathsOf({ name: 'Edit', input: { file_path: 'src/a.ts' } }, ['Edit', 'Write'])).toEqual(['src/a.ts']);
    expect(editPathsOf({ name: 'rename', input: { from: 'a', to: 'b' } }, ['rename'])).toEqual(['a', 'b']);
    expect(editPathsOf({ name: 'Bash', input: { command: 'rm x' } }, ['Edit'])).toEqual([]);
    expect(editPathsOf({ name: 'Edit', input: 'not an object' }, ['Edit'])).toEqual([]);
    expect(editPathsOf({ name: 'Edit', input: 'a raw patch', paths: ['x.ts'] }, ['Edit'])).toEqual(['x.ts']);
  });
});
