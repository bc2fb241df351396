/**
 * Go and Rust imports resolved to repository files, through the binary: a Go import under the
 * go.mod's module path is its package folder's files (a nested module's longest path wins), a
 * Rust `mod x;` and `use crate::`/`self::`/`super::` paths are the module's file; standard and
 * external packages stay unresolved.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runNeo } from '../helpers/cli.js';
import { tempDir, writeTree } from '../helpers/temp.js';
import { git } from './flow-helpers.js';

async function indexed(files: Record<string, string>) {
  const root = await tempDir('neo-e2e-imports-');
  const repo = join(root, 'repo');
  await writeTree(repo, files);
  await git(repo, 'init', '-q');
  const env = { NEO_HOME: join(root, 'home') };
  const index = await runNeo(['memory', 'index', '--json'], { cwd: repo, env });
  expect(index.exitCode, index.stderr).toBe(0);
  const query = async (...args: string[]) => {
    const run = await runNeo(['memory', 'query', ...args, '--json'], { cwd: repo, env });
    expect(run.exitCode, run.stderr).toBe(0);
    return JSON.parse(run.stdout) as { imports: Array<{ spec: string; target?: string }>; importedBy: string[] };
  };
  return { query };
}

describe('Go and Rust imports', () => {
  it('Go: the module path from go.mod to the package folder', async () => {
    const { query } = await indexed({
      'go.mod': 'module example.com/shop\n\ngo 1.22\n',
      'main.go':
        'package main\n\nimport (\n\t"fmt"\n\t"example.com/shop/internal/price"\n\t"github.com/x/y"\n)\n\nfunc main() { fmt.Println(price.Total(1)) }\n',
      'internal/price/total.go': 'package price\n\nfunc Total(n int) int { return round(n) }\n',
      'internal/price/round.go': 'package price\n\nfunc round(n int) int { return n }\n',
      'internal/price/total_test.go': 'package price\n\nimport "testing"\n\nfunc TestTotal(t *testing.T) {}\n',
      'tools/go.mod': 'module example.com/shop/tools\n',
      'tools/gen.go': 'package tools\n\nimport "example.com/shop/tools/fmtx"\n',
      'tools/fmtx/fmtx.go': 'package fmtx\n\nfunc Pad() {}\n',
    });
    const main = await query('imports', 'main.go');
    expect(main.imports).toEqual([
      { spec: 'fmt', line: 4 },
      { spec: 'example.com/shop/internal/price', target: 'internal/price/round.go', line: 5 },
      { spec: 'example.com/shop/internal/price', target: 'internal/price/total.go', line: 5 },
      { spec: 'github.com/x/y', line: 6 },
    ]);
    expect((await query('imports', 'internal/price/total.go')).importedBy).toEqual(['main.go']);
    // The nested module owns its own paths.
    expect((await query('imports', 'tools/gen.go')).imports).toEqual([
      { spec: 'example.com/shop/tools/fmtx', target: 'tools/fmtx/fmtx.go', line: 3 },
    ]);
  });

  it('Rust: mod declarations and crate/self/super paths to the module file', async () => {
    const { query } = await indexed({
      'Cargo.toml': '[package]\nname = "shop"\n',
      'src/lib.rs': 'mod price;\npub mod cart;\nmod inline { fn x() {} }\n\nuse std::collections::HashMap;\n',
      'src/price.rs': 'pub fn total(n: i32) -> i32 { n }\n',
      'src/cart/mod.rs': 'mod line;\nuse crate::price::total;\nuse self::line::{Line, sum as s};\n',
      'src/cart/line.rs': 'use super::super::price;\nuse super::Cart;\npub struct Line;\npub fn sum() {}\n',
      'tests/cart.rs': 'use shop::cart;\n#[test]\nfn adds() { total(1); }\n',
    });
    const lib = await query('imports', 'src/lib.rs');
    expect(lib.imports).toEqual([
      { spec: 'mod price', target: 'src/price.rs', line: 1 },
      { spec: 'mod cart', target: 'src/cart/mod.rs', line: 2 },
      { spec: 'std::collections::HashMap', line: 5 },
    ]);
    expect((await query('imports', 'src/cart/mod.rs')).imports).toEqual([
      { spec: 'mod line', target: 'src/cart/line.rs', line: 1 },
      { spec: 'crate::price::total', target: 'src/price.rs', line: 2 },
      { spec: 'self::line::{Line, sum as s}', target: 'src/cart/line.rs', line: 3 },
    ]);
    expect((await query('imports', 'src/cart/line.rs')).imports).toEqual([
      { spec: 'super::super::price', target: 'src/price.rs', line: 1 },
      { spec: 'super::Cart', target: 'src/cart/mod.rs', line: 2 },
    ]);
    expect((await query('imports', 'src/price.rs')).importedBy).toEqual([
      'src/cart/line.rs',
      'src/cart/mod.rs',
      'src/lib.rs',
    ]);
  });
});
