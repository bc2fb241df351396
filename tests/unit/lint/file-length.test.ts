import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { packageRoot } from '../../../engine/util/package-root.js';

// CONVENTIONS: source files mostly 50–200 lines, 400 at most. A file past that holds more than one
// concept; split it along its seams rather than listing it here. engine/generated is left out: it
// is generated from schemas/, whose size it follows.
const MAX_LINES = 400;
const ROOTS = ['engine', 'cli', 'bench', 'scripts', 'web/src'];
const SOURCE = /\.(ts|tsx|mjs)$/;

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory())
      return entry.name === 'generated' || entry.name === 'node_modules' ? [] : sourceFiles(path);
    return SOURCE.test(entry.name) ? [path] : [];
  });
}

/** Lines as `wc -l` counts them: a last line without its newline is not one. */
function lineCount(text: string): number {
  let lines = 0;
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) lines++;
  return lines;
}

/** Every source file under `roots` (relative to `root`) longer than MAX_LINES, as `path: lines`. */
function overLong(root: string, roots: string[]): string[] {
  return roots
    .flatMap((r) => sourceFiles(join(root, r)))
    .map((file) => ({ file, lines: lineCount(readFileSync(file, 'utf8')) }))
    .filter(({ lines }) => lines > MAX_LINES)
    .map(({ file, lines }) => `${relative(root, file)}: ${lines}`)
    .sort();
}

describe('file length', () => {
  let planted: string | undefined;
  afterEach(() => {
    if (planted !== undefined) rmSync(planted, { recursive: true, force: true });
    planted = undefined;
  });

  it(`no source file of ${ROOTS.join(', ')} is longer than ${MAX_LINES} lines`, () => {
    expect(overLong(packageRoot(), ROOTS)).toEqual([]);
  });

  it('names a planted file one line over the limit, in any folder, and passes one at it', () => {
    planted = mkdtempSync(join(tmpdir(), 'neo-file-length-'));
    mkdirSync(join(planted, 'engine', 'area', 'inner'), { recursive: true });
    mkdirSync(join(planted, 'engine', 'generated'));
    const lines = (n: number) => 'export const x = 1;\n'.repeat(n);
    writeFileSync(join(planted, 'engine', 'area', 'inner', 'long.ts'), lines(MAX_LINES + 1));
    writeFileSync(join(planted, 'engine', 'area', 'at-limit.ts'), lines(MAX_LINES));
    writeFileSync(join(planted, 'engine', 'area', 'script.mjs'), lines(MAX_LINES) + 'x;\n');
    writeFileSync(join(planted, 'engine', 'area', 'notes.md'), lines(MAX_LINES * 2));
    writeFileSync(join(planted, 'engine', 'generated', 'flow.ts'), lines(MAX_LINES * 2));
    expect(overLong(planted, ['engine'])).toEqual([`engine/area/inner/long.ts: 401`, `engine/area/script.mjs: 401`]);
  });
});
