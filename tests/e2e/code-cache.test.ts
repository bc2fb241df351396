/**
 * The `neo` binary loads its chunks with V8's code cache (cli/boot/chunk-loader.ts), made by
 * `npm run build` (scripts/bundle-commonjs.mjs): this Node takes the build's cache for the
 * chunks every command loads, the vendored yaml and the validators; and a chunk the loader
 * serves is the same module whether a chunk requires it or loads it through `createRequire`.
 * Needs `npm run build`.
 */
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { NEO_BIN } from '../helpers/cli.js';

const BIN_DIR = dirname(NEO_BIN);
const LOADER = join(BIN_DIR, '..', 'cli', 'boot', 'chunk-loader.js');

describe("the binary's code cache", () => {
  it('is taken by this Node for the start chunk, yaml and the validators', () => {
    const folders = readdirSync(join(BIN_DIR, 'code-cache'));
    expect(folders).toHaveLength(1);
    expect(folders[0]).toMatch(new RegExp(`^[0-9a-f]{16}-${process.version}-${process.arch}$`));
    const start = /^var \w+ = require\("\.\/(chunks\/chunk-\w+\.js)"\);$/m.exec(
      readFileSync(join(BIN_DIR, 'neo-main.js'), 'utf8'),
    )![1]!;
    const files = [start, 'vendor/yaml.js', 'generated/validators.cjs'].map((file) => join(BIN_DIR, file));
    // A process of its own, with no V8 flag the binary does not set (V8 checks them).
    const script = `
      import { chunkLoader } from ${JSON.stringify(LOADER)};
      const loader = chunkLoader(${JSON.stringify(BIN_DIR)}, ${JSON.stringify(join(BIN_DIR, 'code-cache', folders[0]!))});
      const files = ${JSON.stringify(files)};
      for (const file of files) loader.load(file);
      const yaml = loader.load(files[1]);
      console.log(JSON.stringify({ use: files.map((f) => loader.cacheUse.get(f)), parsed: yaml.parse('a: [1, 2]') }));`;
    const out = JSON.parse(execFileSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' }));
    expect(out).toEqual({ use: [true, true, true], parsed: { a: [1, 2] } });
  });
});
