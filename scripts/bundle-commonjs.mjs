// Part of scripts/bundle.mjs: turns esbuild's split ES module bundle into CommonJS chunks that
// cli/boot/chunk-loader.ts loads with V8's code cache, writes the `neo` binary (the loader), and
// trains the cache by running a few commands of the built binary.
//
// Why CommonJS: Node 20 has no compile cache, and V8's code cache is reachable only through
// `vm.Script` (ES modules have no cache hook; `vm.SourceTextModule` is behind a flag). Each chunk
// keeps its name and content but for the module syntax: `import`/`export` become `require` and
// `module.exports`, a dynamic `import()` a `require` inside a promise (every package neo imports
// that way has a CommonJS build), `import.meta.url` the chunk's own file URL. A chunk stays a
// plain CommonJS module (dist/bin/package.json says so), which the definitions worker requires.
import { build, transform } from 'esbuild';
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Converts every chunk under `outdir` in place. */
export async function toCommonJs(outdir) {
  for (const file of bundleFiles(outdir)) {
    let text = readFileSync(file, 'utf8');
    const hashbang = text.startsWith('#!') ? text.slice(0, text.indexOf('\n') + 1) : '';
    // esbuild heads each module's code with `// <source path>` (what tests/e2e/startup-chunks.test.ts
    // reads); a transform drops ordinary comments, so they pass as legal ones (`//!`).
    text = text.slice(hashbang.length).replace(/^\/\/ ((?:engine|cli|node_modules)\/\S+)$/gm, '//! $1');
    const out = await transform(text, {
      format: 'cjs',
      platform: 'node',
      target: 'node20',
      supported: { 'dynamic-import': false },
      define: { 'import.meta.url': '__neoUrl' },
      banner: 'var __neoUrl = require("node:url").pathToFileURL(__filename).href;',
      legalComments: 'inline',
      sourcefile: file,
      logLevel: 'warning',
    });
    writeFileSync(file, hashbang + asciiOnly(lazyBuiltins(out.code)));
  }
  writeFileSync(join(outdir, 'package.json'), '{ "type": "commonjs" }\n');
}

/**
 * Escapes what is left of non-ASCII text in a chunk: esbuild writes code as ASCII already, but a
 * comment it keeps (on an object or class member) can hold a `—` or a `…`, and one such character
 * makes V8 hold the whole chunk as a two-byte string: twice the bytes for as long as the script
 * lives (a chunk over 128 KB sits in the large-object space until a full GC). As an escape, the
 * character means the same in a string, a template or a pattern, and a comment is only text.
 */
export function asciiOnly(code) {
  return code.replace(/[^\x00-\x7f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/**
 * Node's modules that cost start-up time to load and that only some commands (or only some runs)
 * use: `node:http` for a metrics port, `node:readline` for a prompt, `node:crypto` and
 * `node:fs/promises` that `neo validate` loaded only because a module sharing its chunk imports
 * them (docs/architecture.md, "Start-up, fourth pass"). A chunk's top-level require of one is
 * hoisted to the chunk's head, so it loads with the chunk, used or not.
 */
const LAZY_BUILTINS = new Set([
  'node:child_process',
  'node:crypto',
  'node:fs/promises',
  'node:http',
  'node:https',
  'node:net',
  'node:readline',
  'node:readline/promises',
  'node:timers/promises',
  'node:worker_threads',
  'node:zlib',
]);

/**
 * Makes a chunk require those modules at first use: `var x = require("node:http");` becomes an
 * object that requires the module when a property is first read. Only where the chunk reads the
 * variable as `x.name` and nothing else (esbuild's form for a named import), so every use goes
 * through the proxy and sees the module itself; any other use keeps the eager require.
 */
export function lazyBuiltins(code) {
  let lazy = false;
  const out = code.replace(/^var (\w+) = require\("(node:[\w/]+)"\);$/gm, (line, name, id) => {
    if (!LAZY_BUILTINS.has(id)) return line;
    const uses = code.match(new RegExp(`\\b${name}\\b(?!\\$)`, 'g'))?.length ?? 0;
    const properties = code.match(new RegExp(`\\b${name}\\.\\w`, 'g'))?.length ?? 0;
    // One use is the declaration itself.
    if (uses !== properties + 1) return line;
    lazy = true;
    return `var ${name} = __neoLazy(${JSON.stringify(id)});`;
  });
  if (!lazy) return out;
  // On the banner's line (the first), so that every other line keeps its number.
  const helper =
    ' var __neoLazy = (id) => { let m; return new Proxy({}, { get: (_, key) => (m ??= require(id))[key] }); };';
  const eol = out.indexOf('\n');
  return out.slice(0, eol) + helper + out.slice(eol);
}

/**
 * Bundles what the chunks require synchronously on first use into single CommonJS files the
 * loader caches too: the `yaml` package (~60 modules: resolving and compiling them one by one
 * cost a flow run more than the rest of its parsing) as `vendor/yaml.js`, and the precompiled
 * validators (with the one ajv helper they require) as `generated/validators.cjs`, where
 * schema-check.ts finds them beside the chunks.
 */
export async function writeVendored(root, outdir) {
  const common = {
    absWorkingDir: root,
    bundle: true,
    format: 'cjs',
    platform: 'node',
    target: 'node20',
    logLevel: 'warning',
  };
  await build({ ...common, entryPoints: ['yaml'], outfile: join(outdir, 'vendor', 'yaml.js') });
  await build({
    ...common,
    entryPoints: ['engine/generated/validators.cjs'],
    outfile: join(outdir, 'generated', 'validators.cjs'),
  });
}

/**
 * Writes dist/bin/neo.js: the loader (cli/boot/neo.ts) bundled alone, with the hash of every
 * chunk it loads: the cache folder is named after it, so a cache is only ever read by the very
 * chunks it was made from (V8's own check compares only the source's length).
 */
export async function writeBinary(root, outdir) {
  const hash = createHash('sha256');
  for (const file of bundleFiles(outdir).sort()) hash.update(file.slice(outdir.length)).update(readFileSync(file));
  await build({
    define: { NEO_BUNDLE_ID: JSON.stringify(hash.digest('hex').slice(0, 16)) },
    absWorkingDir: root,
    entryPoints: ['cli/boot/neo.ts'],
    bundle: true,
    format: 'cjs',
    platform: 'node',
    target: 'node20',
    outfile: join(outdir, 'neo.js'),
    logLevel: 'warning',
  });
}

/**
 * Runs the commands whose start-up the issue-29 benches measure (`--help`, `validate`, a one-step
 * flow), each writing the compiled code of the chunks it loaded into the cache (a later run
 * starts from the earlier one's, so the cache of a shared chunk holds what any of them compiled);
 * the last also caches the top level of every chunk none of them loaded.
 */
export function trainCodeCache(outdir) {
  const scratch = mkdtempSync(join(tmpdir(), 'neo-code-cache-'));
  try {
    const plain = join(scratch, 'plain');
    mkdirSync(plain);
    writeFileSync(
      join(plain, 'plan.yaml'),
      'name: train\nworkspace: { isolation: inplace }\nsteps:\n  - { id: a, run: "true" }\n',
    );
    const runs = [['--help'], ['validate'], ['flow', 'run', 'plan.yaml']];
    for (const [i, args] of runs.entries()) {
      const result = spawnSync(process.execPath, [join(outdir, 'neo.js'), ...args], {
        cwd: plain,
        env: {
          ...process.env,
          NEO_HOME: join(scratch, 'home'),
          NEO_CODE_CACHE_WRITE: i === runs.length - 1 ? 'all' : '1',
          NO_COLOR: '1',
        },
        encoding: 'utf8',
      });
      // The cache only speeds start-up; a command that fails here leaves its chunks uncached.
      if (result.status !== 0)
        console.warn(`code cache: \`neo ${args.join(' ')}\` exited ${result.status}: ${result.stderr}`);
    }
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

/** Every script of the bundle but the binary (the loader) itself. */
function bundleFiles(outdir) {
  return readdirSync(outdir, { recursive: true, encoding: 'utf8' })
    .filter((name) => /\.c?js$/.test(name) && name !== 'neo.js' && !name.startsWith('code-cache'))
    .map((name) => join(outdir, name));
}
