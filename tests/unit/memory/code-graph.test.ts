/**
 * The code graph on a small repository per language: definitions with spans and signatures,
 * calls with their callers, imports resolved where the language makes it cheap, tests-of, the
 * outline, and an incremental index that parses only what changed.
 */
import { execFileSync } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  callees,
  callers,
  findSymbol,
  imports,
  indexRepository,
  openMemory,
  outline,
  repoMap,
  symbolsOfDiff,
  testsFor,
} from '../../../engine/memory/index.js';
import { tempDir, writeTree } from '../../helpers/temp.js';

async function repo(files: Record<string, string>) {
  const root = await tempDir('neo-graph-');
  const dir = join(root, 'repo');
  await writeTree(dir, files);
  execFileSync('git', ['init', '-q'], { cwd: dir });
  const memory = openMemory(join(root, 'home'), dir);
  return { dir, memory };
}

const TS = {
  '.gitignore': 'build/\n',
  'build/out.ts': 'export function ignored() {}\n',
  'src/money.ts': [
    "import { clamp } from './util.js';",
    '',
    'export class Money {',
    '  constructor(readonly cents: number) {}',
    '  add(other: Money): Money {',
    '    return new Money(clamp(this.cents + other.cents));',
    '  }',
    '}',
    '',
    'export function total(items: Money[]): Money {',
    '  return items.reduce((a, b) => a.add(b), new Money(0));',
    '}',
    '',
  ].join('\n'),
  'src/util.ts': 'export const clamp = (n: number): number => Math.max(0, n);\n',
  'test/money.test.ts': "import { total, Money } from '../src/money.js';\ntotal([new Money(1)]);\n",
};

describe('the code graph', () => {
  it('TypeScript: definitions, calls with callers, imports, tests-of, outline; .gitignore honoured', async () => {
    const { dir, memory } = await repo(TS);
    const { db } = memory;
    const report = await indexRepository(db, dir);
    expect(report).toMatchObject({ files: 3, parsed: 3, removed: 0, unchanged: 0 });
    expect(findSymbol(db, 'ignored')).toEqual([]);
    expect(findSymbol(db, 'Money.add')).toEqual([
      {
        name: 'add',
        kind: 'method',
        parent: 'Money',
        file: 'src/money.ts',
        startLine: 5,
        endLine: 7,
        signature: 'add(other: Money): Money',
      },
    ]);
    expect(findSymbol(db, 'clamp')).toEqual([
      {
        name: 'clamp',
        kind: 'function',
        file: 'src/util.ts',
        startLine: 1,
        endLine: 1,
        signature: 'clamp = (n: number): number => Math.max(0, n)',
      },
    ]);
    expect(callers(db, 'clamp')).toEqual([{ caller: 'add', file: 'src/money.ts', lines: [6] }]);
    expect(callers(db, 'total')).toEqual([{ caller: '(top level)', file: 'test/money.test.ts', lines: [2] }]);
    expect(callees(db, 'total').map((c) => [c.name, c.definedIn])).toEqual([
      ['reduce', []],
      ['add', ['src/money.ts']],
      ['Money', ['src/money.ts']],
    ]);
    expect(imports(db, 'src/money.ts')).toEqual({
      imports: [{ spec: './util.js', target: 'src/util.ts', line: 1 }],
      importedBy: ['test/money.test.ts'],
    });
    expect(testsFor(db, 'src/money.ts')).toEqual([{ file: 'test/money.test.ts', why: 'imports src/money.ts' }]);
    expect(testsFor(db, 'total')).toEqual([{ file: 'test/money.test.ts', why: 'imports src/money.ts' }]);
    expect(testsFor(db, 'src/util.ts')).toEqual([]);
    expect(outline(db, 'src/money.ts').map((s) => `${s.startLine} ${s.kind} ${s.name}`)).toEqual([
      '3 class Money',
      '4 method constructor',
      '5 method add',
      '10 function total',
    ]);
    expect(repoMap(db, { tokens: 200, focus: ['src/util.ts'] }).split('\n')[0]).toBe('src/util.ts:');

    // Incremental: nothing changed, nothing parsed; one file changed, only it; one removed, gone.
    expect(await indexRepository(db, dir)).toMatchObject({ parsed: 0, unchanged: 3 });
    await writeFile(
      join(dir, 'src/util.ts'),
      'export function clamp(n: number) { return n; }\nexport function floor() {}\n',
    );
    expect(await indexRepository(db, dir)).toMatchObject({ parsed: 1, unchanged: 2 });
    expect(findSymbol(db, 'floor').map((s) => s.file)).toEqual(['src/util.ts']);
    execFileSync('rm', [join(dir, 'test/money.test.ts')]);
    expect(await indexRepository(db, dir)).toMatchObject({ parsed: 0, removed: 1 });
    expect(testsFor(db, 'src/money.ts')).toEqual([]);
    db.close();
  });

  it('Python, Go and Rust: definitions, methods in their class, calls and tests', async () => {
    const { dir, memory } = await repo({
      'pkg/shapes.py':
        'class Square:\n    def area(self):\n        return mul(self.s, self.s)\n\ndef mul(a, b):\n    return a * b\n',
      'tests/test_shapes.py': 'from pkg.shapes import Square\n\ndef test_area():\n    assert Square().area() == 4\n',
      'geo/geo.go':
        'package geo\n\ntype Point struct{ X int }\n\nfunc (p Point) Norm() int { return abs(p.X) }\n\nfunc abs(x int) int { return x }\n',
      'geo/geo_test.go': 'package geo\n\nimport "testing"\n\nfunc TestNorm(t *testing.T) { Point{}.Norm() }\n',
      'src/lib.rs':
        'pub struct Stack { items: Vec<i32> }\n\nimpl Stack {\n    pub fn push(&mut self, x: i32) { grow(x); }\n}\n\nfn grow(x: i32) {}\n',
      'tests/stack.rs': 'use crate::Stack;\n\n#[test]\nfn pushes() { Stack::new().push(1); }\n',
    });
    const { db } = memory;
    await indexRepository(db, dir);
    expect(findSymbol(db, 'area')).toMatchObject([
      { kind: 'method', parent: 'Square', file: 'pkg/shapes.py', startLine: 2 },
    ]);
    expect(callers(db, 'mul')).toEqual([{ caller: 'area', file: 'pkg/shapes.py', lines: [3] }]);
    expect(imports(db, 'tests/test_shapes.py').imports).toEqual([
      { spec: 'pkg.shapes', target: 'pkg/shapes.py', line: 1 },
    ]);
    expect(testsFor(db, 'pkg/shapes.py')).toEqual([{ file: 'tests/test_shapes.py', why: 'imports pkg/shapes.py' }]);

    expect(findSymbol(db, 'Norm')).toMatchObject([{ kind: 'method', file: 'geo/geo.go', startLine: 5 }]);
    expect(findSymbol(db, 'Point')).toMatchObject([{ kind: 'type', file: 'geo/geo.go', startLine: 3 }]);
    expect(callers(db, 'abs')).toEqual([{ caller: 'Norm', file: 'geo/geo.go', lines: [5] }]);
    expect(testsFor(db, 'Norm')).toEqual([{ file: 'geo/geo_test.go', why: 'uses Norm' }]);

    expect(findSymbol(db, 'push')).toMatchObject([
      { kind: 'method', parent: 'Stack', file: 'src/lib.rs', startLine: 4 },
    ]);
    expect(callers(db, 'grow')).toEqual([{ caller: 'push', file: 'src/lib.rs', lines: [4] }]);
    expect(testsFor(db, 'push')).toEqual([{ file: 'tests/stack.rs', why: 'uses push' }]);
    db.close();
  });
});

describe('the symbols of a change', () => {
  it('are the definitions whose spans a hunk overlaps, and those named in hunk headers', async () => {
    const { dir, memory } = await repo(TS);
    await indexRepository(memory.db, dir);
    const diff = [
      'diff --git a/src/money.ts b/src/money.ts',
      '--- a/src/money.ts',
      '+++ b/src/money.ts',
      '@@ -6,1 +6,1 @@ export class Money {',
      '-    return new Money(clamp(this.cents + other.cents));',
      '+    return new Money(this.cents + other.cents);',
      '--- /dev/null',
      '+++ b/src/new.ts',
      '@@ -0,0 +1,1 @@',
      '+export function fresh() {}',
    ].join('\n');
    expect(symbolsOfDiff(memory.db, diff).sort()).toEqual(['Money', 'add']);
    memory.db.close();
  });
});
