import { describe, expect, test } from 'vitest';
import { globMatch, relativeInside } from '../../../engine/posture/index.js';

describe('relativeInside', () => {
  test.each([
    ['/repo', 'src/a.ts', 'src/a.ts'],
    ['/repo', '/repo/src/a.ts', 'src/a.ts'],
    ['/repo', './src/../lib/b.ts', 'lib/b.ts'],
    ['/repo', '/repo', ''],
    ['/repo/', '/repo/x', 'x'],
    ['/repo', '../etc/passwd', undefined],
    ['/repo', 'src/../../etc/passwd', undefined],
    ['/repo', '/etc/passwd', undefined],
    ['/repo', '/repository/x', undefined],
    ['/repo', '/repo/../repo2/x', undefined],
  ])('%s + %s', (root, path, expected) => {
    expect(relativeInside(root, path)).toBe(expected);
  });
});

describe('globMatch', () => {
  test.each([
    ['**', 'a/b/c.ts', true],
    ['**', '.env', true],
    ['src/**', 'src/a/b.ts', true],
    ['src/**', 'src', false],
    ['src/**', 'lib/a.ts', false],
    ['**/.env*', '.env', true],
    ['**/.env*', 'config/.env.local', true],
    ['**/.env*', 'config/env', false],
    ['.git/**', '.git/config', true],
    ['**/node_modules/**', 'node_modules/x/index.js', true],
    ['**/node_modules/**', 'a/node_modules/x.js', true],
    ['*.md', 'README.md', true],
    ['*.md', 'docs/README.md', false],
    ['src/?.ts', 'src/a.ts', true],
    ['src/?.ts', 'src/ab.ts', false],
    ['a.b', 'aXb', false],
  ])('%s ~ %s', (glob, path, expected) => {
    expect(globMatch(glob, path)).toBe(expected);
  });
});
