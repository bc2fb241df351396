/**
 * The binary's chunk loader (cli/boot/chunk-loader.ts): CommonJS chunks evaluated once each,
 * the bundle's own files (and its vendored packages, also through `createRequire`) served by
 * it, and V8's code cache written by training and read back — and a cache V8 rejects (garbage,
 * or made from other source) ignored, the chunk compiled from source with the same result.
 */
import { cpSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { chunkLoader, codeCacheDir } from '../../../../cli/boot/chunk-loader.js';
import { tempDir, writeTree } from '../../../helpers/temp.js';

const BUNDLE = {
  'neo-main.js': [
    'var shared = require("./chunks/shared.js");',
    'var { createRequire } = require("node:module");',
    'var lazy = createRequire(require("node:url").pathToFileURL(__filename).href);',
    'exports.answer = () => shared.twice(21);',
    'exports.shared = shared;',
    'exports.viaCreateRequire = () => lazy("tiny");',
    'exports.viaRequire = () => require("tiny");',
    'exports.builtin = require("node:path").sep;',
    'exports.file = __filename;',
  ].join('\n'),
  'chunks/shared.js': 'exports.twice = (n) => n * 2;\nexports.loadedFrom = require("./other.js").name;\n',
  'chunks/other.js': '#!/usr/bin/env node\nexports.name = "other";\n',
  'chunks/unused.js': 'exports.never = () => 1;\n',
  'vendor/tiny.js': 'exports.tiny = Symbol("tiny");\n',
};

async function bundle(): Promise<{ root: string; cache: string }> {
  const root = await tempDir('neo-chunk-loader-');
  await writeTree(root, BUNDLE);
  return { root, cache: codeCacheDir(root, 'test') };
}

/**
 * The same bundle with its caches in another folder. V8 keeps what this process compiled and
 * would answer a second compile of the same file from memory, cache or no cache; a chunk at
 * another path is compiled anew, from its cache (a real start-up's case: one load per process).
 */
async function copied(from: string): Promise<{ root: string; cache: string }> {
  const root = await tempDir('neo-chunk-loader-copy-');
  cpSync(from, root, { recursive: true });
  return { root, cache: codeCacheDir(root, 'test') };
}

type Main = {
  answer(): number;
  shared: { loadedFrom: string };
  viaCreateRequire(): { tiny: symbol };
  viaRequire(): { tiny: symbol };
  builtin: string;
  file: string;
};

describe('chunkLoader', () => {
  it('evaluates each chunk once and serves the bundle’s files, vendored packages included', async () => {
    const { root, cache } = await bundle();
    const loader = chunkLoader(root, cache);
    const main = loader.load(join(root, 'neo-main.js')) as Main;
    expect(main.answer()).toBe(42);
    expect(main.shared).toBe(loader.load(join(root, 'chunks', 'shared.js')));
    expect(main.shared.loadedFrom).toBe('other');
    expect(main.viaCreateRequire()).toBe(main.viaRequire());
    expect(main.viaRequire()).toBe(loader.load(join(root, 'vendor', 'tiny.js')));
    expect(main.builtin).toBe('/');
    expect(main.file).toBe(join(root, 'neo-main.js'));
    // No cache folder: nothing read.
    expect([...loader.cacheUse.values()]).toEqual([undefined, undefined, undefined, undefined]);
  });

  it('reads back the cache a training run wrote, for the chunks it ran and (with everyChunk) the rest', async () => {
    const { root, cache } = await bundle();
    const training = chunkLoader(root, cache);
    (training.load(join(root, 'neo-main.js')) as Main).answer();
    training.writeCache(true);
    expect(readdirSync(cache).sort()).toEqual([
      'chunks+other.js.cache',
      'chunks+shared.js.cache',
      'chunks+unused.js.cache',
      'neo-main.js.cache',
      'vendor+tiny.js.cache',
    ]);

    const copy = await copied(root);
    const loader = chunkLoader(copy.root, copy.cache);
    expect((loader.load(join(copy.root, 'neo-main.js')) as Main).answer()).toBe(42);
    expect((loader.load(join(copy.root, 'chunks', 'unused.js')) as { never(): number }).never()).toBe(1);
    expect(Object.fromEntries(loader.cacheUse)).toEqual({
      [join(copy.root, 'neo-main.js')]: true,
      [join(copy.root, 'chunks', 'shared.js')]: true,
      [join(copy.root, 'chunks', 'other.js')]: true,
      [join(copy.root, 'chunks', 'unused.js')]: true,
    });
  });

  it('compiles from source when V8 rejects a cache: garbage, or made from other source', async () => {
    const { root, cache } = await bundle();
    const training = chunkLoader(root, cache);
    (training.load(join(root, 'neo-main.js')) as Main).viaRequire();
    training.writeCache(false);
    const copy = await copied(root);
    writeFileSync(join(copy.cache, 'neo-main.js.cache'), Buffer.alloc(4096, 7));
    writeFileSync(
      join(copy.root, 'chunks', 'shared.js'),
      'exports.twice = (n) => n * 3;\nexports.loadedFrom = require("./other.js").name + " edited";\n',
    );

    const loader = chunkLoader(copy.root, copy.cache);
    const main = loader.load(join(copy.root, 'neo-main.js')) as Main;
    expect(main.answer()).toBe(63);
    expect(main.shared.loadedFrom).toBe('other edited');
    expect(main.viaRequire().tiny.description).toBe('tiny');
    expect(Object.fromEntries(loader.cacheUse)).toEqual({
      [join(copy.root, 'neo-main.js')]: false,
      [join(copy.root, 'chunks', 'shared.js')]: false,
      [join(copy.root, 'chunks', 'other.js')]: true,
      [join(copy.root, 'vendor', 'tiny.js')]: true,
    });
  });

  it('names the cache folder after the bundle and this Node', () => {
    expect(codeCacheDir('/x/dist/bin', 'abc')).toBe(`/x/dist/bin/code-cache/abc-${process.version}-${process.arch}`);
  });
});
