/**
 * Loads the `neo` bundle's CommonJS chunks with V8's code cache. Node 20 compiles every module
 * from source on every start (it has no module compile cache, and ES modules no cache hook at
 * all), and compiling the chunks a command loads was the largest share of start-up after Node's
 * own (docs/architecture.md, "Start-up, third pass"). So the build converts the chunks to
 * CommonJS and `npm run build` runs a few commands that leave each chunk's compiled code in
 * `dist/bin/code-cache/<node version>-<arch>/` (`scripts/bundle-commonjs.mjs`); this loader
 * compiles a chunk with its cache. V8 checks a cache against its own version, its flags and the
 * source's length and ignores one that does not match (`cachedDataRejected`): the chunk is then
 * compiled from source as without a cache. The cache lives beside the bundle it was made from
 * and is written only by the build: whoever can write it can write the bundle itself, so it adds
 * no way in (a folder a confined step can write is never read here).
 *
 * Every chunk is also a plain CommonJS module (the definitions worker thread requires them
 * natively); a chunk loaded here is never loaded by Node's own loader as well, since every
 * relative `require` of a chunk comes back here.
 */
import nodeModule, { createRequire } from 'node:module';
import {
  closeSync,
  existsSync,
  fstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  readSync,
  renameSync,
  writeFileSync,
} from 'node:fs';
import { dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Script } from 'node:vm';

interface LoadedModule {
  exports: unknown;
  id: string;
  filename: string;
  loaded: boolean;
}

export interface ChunkLoader {
  /** Evaluates `file` (once) and returns its exports. */
  load(file: string): unknown;
  /**
   * Writes the compiled code of every chunk loaded so far into the cache folder (the build's
   * training runs); with `everyChunk`, also the top level of each chunk that has no cache yet.
   */
  writeCache(everyChunk: boolean): void;
  /** How the caches fared, for the tests: chunk file → whether V8 took its cache (undefined: none found). */
  readonly cacheUse: ReadonlyMap<string, boolean | undefined>;
}

// Node's CommonJS wrapper, on the chunk's first line so that line numbers in stack traces match.
const HEAD = '(function (exports, require, module, __filename, __dirname) { ';
const TAIL = '\n})';

/**
 * The cache folder for this bundle (`bundleId`: a hash of its chunks, which the build gives the
 * binary) and this Node: V8 checks a cache against its own version and flags but compares only
 * the source's length, so a cache is read only by the chunks it was made from; and a cache from
 * another Node would be rejected anyway, so its folder is not even looked in.
 */
export function codeCacheDir(root: string, bundleId: string): string {
  return join(root, 'code-cache', `${bundleId}-${process.version}-${process.arch}`);
}

/** A loader for the chunks under `root`, reading (and in training, writing) caches in `cacheDir`. */
export function chunkLoader(root: string, cacheDir: string): ChunkLoader {
  const modules = new Map<string, LoadedModule>();
  const scripts = new Map<string, Script>();
  const cacheUse = new Map<string, boolean | undefined>();
  const cacheFile = (file: string) => join(cacheDir, `${relative(root, file).split(sep).join('+')}.cache`);
  // Asked once: under another Node than the build's there is no folder, and a failed read per chunk costs a thrown error.
  const cached = existsSync(cacheDir);

  function load(file: string): unknown {
    const known = modules.get(file);
    if (known !== undefined) return known.exports;
    const module: LoadedModule = { exports: {}, id: file, filename: file, loaded: false };
    modules.set(file, module);
    const cachedData = cached ? readOptional(cacheFile(file)) : undefined;
    const script = new Script(wrapped(file), { filename: file, ...(cachedData && { cachedData }) });
    cacheUse.set(file, cachedData === undefined ? undefined : !script.cachedDataRejected);
    scripts.set(file, script);
    const wrapper = script.runInThisContext() as (...args: unknown[]) => void;
    wrapper.call(module.exports, module.exports, requireFor(file), module, file, dirname(file));
    module.loaded = true;
    return module.exports;
  }

  /**
   * A chunk's `require`. The bundle's own files come back here: a path under `root`, and a package
   * the build bundled into `vendor/<name>.js` (yaml: ~60 modules Node would resolve and compile
   * one by one). The sources load such files lazily and synchronously with `createRequire`
   * (yaml-lib.ts, schema-check.ts), so `node:module` as a chunk requires it hands out requires of
   * this kind. Anything else (Node's modules, packages not bundled) is Node's `require`.
   */
  function requireFor(file: string): NodeJS.Require {
    const native = createRequire(file);
    const own = (id: string): unknown => {
      if (id.startsWith('node:')) return id === 'node:module' ? ownModule : native(id);
      const target =
        id.startsWith('./') || id.startsWith('../')
          ? resolve(dirname(file), id)
          : isAbsolute(id)
            ? id
            : vendored().has(id)
              ? join(root, 'vendor', `${id}.js`)
              : undefined;
      if (target?.startsWith(root + sep) === true) return load(target);
      return id === 'module' ? ownModule : native(id);
    };
    return Object.assign(own, {
      resolve: native.resolve,
      cache: native.cache,
      main: native.main,
      extensions: native.extensions,
    });
  }

  const ownModule = {
    ...nodeModule,
    createRequire(from: string | URL): NodeJS.Require {
      const file = String(from).startsWith('file:') ? fileURLToPath(from) : String(from);
      return file.startsWith(root + sep) ? requireFor(file) : nodeModule.createRequire(from);
    },
  };

  let vendoredNames: Set<string> | undefined;
  function vendored(): Set<string> {
    vendoredNames ??= new Set(
      existsSync(join(root, 'vendor'))
        ? readdirSync(join(root, 'vendor')).map((name) => name.replace(/\.js$/, ''))
        : [],
    );
    return vendoredNames;
  }

  function writeCache(everyChunk: boolean): void {
    mkdirSync(cacheDir, { recursive: true });
    const write = (file: string, script: Script) => {
      const target = cacheFile(file);
      const aside = `${target}.${process.pid}.tmp`;
      writeFileSync(aside, script.createCachedData());
      renameSync(aside, target);
    };
    for (const [file, script] of scripts) write(file, script);
    if (!everyChunk) return;
    for (const file of chunkFiles(root)) {
      if (scripts.has(file) || existsSync(cacheFile(file))) continue;
      write(file, new Script(wrapped(file), { filename: file }));
    }
  }

  return { load, writeCache, cacheUse };
}

const HEAD_BYTES = Buffer.from(HEAD);
const TAIL_BYTES = Buffer.from(TAIL);

/**
 * A chunk's source inside the CommonJS wrapper, decoded once: joining strings would leave the
 * file's text and the joined copy V8 flattens it into both on the heap until a full GC (for a
 * chunk over 128 KB, in the large-object space).
 */
function wrapped(file: string): string {
  const bytes = readFileSync(file);
  // A hashbang is a comment only on a file's first line, which the wrapper takes: make it `//`.
  if (bytes[0] === 0x23 && bytes[1] === 0x21) bytes[0] = bytes[1] = 0x2f;
  return Buffer.concat([HEAD_BYTES, bytes, TAIL_BYTES]).toString('utf8');
}

/** The chunks of the bundle: every script under `root` but the binary itself and the caches. */
function chunkFiles(root: string): string[] {
  return readdirSync(root, { recursive: true, encoding: 'utf8' })
    .filter((name) => /\.c?js$/.test(name) && name !== 'neo.js' && !name.startsWith('code-cache'))
    .map((name) => join(root, name));
}

/**
 * A cache file's bytes, in one buffer reused for every chunk (V8 is done with them when the
 * script is compiled): a buffer per file would stay allocated until a garbage collection, which
 * a short command may never run, and a flow run reads ~1.3 MB of caches.
 */
let shared = Buffer.alloc(0);
function readOptional(file: string): Buffer | undefined {
  let fd: number;
  try {
    fd = openSync(file, 'r');
  } catch {
    return undefined;
  }
  try {
    const size = fstatSync(fd).size;
    if (shared.length < size) shared = Buffer.allocUnsafe(Math.max(size, 256 * 1024));
    return shared.subarray(0, readSync(fd, shared, 0, size, 0));
  } finally {
    closeSync(fd);
  }
}
