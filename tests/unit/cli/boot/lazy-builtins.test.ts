/**
 * The bundle's chunks require Node's costlier modules at first use (scripts/bundle-commonjs.mjs,
 * `lazyBuiltins`): a chunk that only names `node:http` for a metrics port no longer loads it on
 * every `neo flow run`. The rewrite must never change what a chunk sees: a module used in any way
 * but `x.name` stays an eager require.
 */
import { fileURLToPath, pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';

const script = fileURLToPath(new URL('../../../../scripts/bundle-commonjs.mjs', import.meta.url));
const { lazyBuiltins } = (await import(pathToFileURL(script).href)) as { lazyBuiltins: (code: string) => string };

/** Evaluates a CommonJS chunk with a `require` that records what it was asked for. */
function evaluate(code: string) {
  const required: string[] = [];
  const fake = (id: string) => {
    required.push(id);
    return { createServer: () => 'server', join: (...parts: string[]) => parts.join('/') };
  };
  const module = { exports: {} as Record<string, () => unknown> };
  new Function('require', 'module', code)(fake, module);
  return { required, exports: module.exports };
}

const BANNER = 'var __neoUrl = "file:///chunk.js";';

describe("the chunks' lazy built-ins", () => {
  it('requires node:http when the chunk first reads from it, not when it loads', () => {
    const code = [
      BANNER,
      'var import_node_http = require("node:http");',
      'var import_node_path = require("node:path");',
      'module.exports.serve = () => (0, import_node_http.createServer)();',
    ].join('\n');
    const lazy = lazyBuiltins(code);
    expect(lazy.split('\n')).toHaveLength(code.split('\n').length);
    const { required, exports } = evaluate(lazy);
    // node:path is not on the list: Node loads it before any chunk anyway.
    expect(required).toEqual(['node:path']);
    expect(exports.serve!()).toBe('server');
    expect(exports.serve!()).toBe('server');
    expect(required).toEqual(['node:path', 'node:http']);
  });

  it('keeps the eager require of a module the chunk uses as a whole', () => {
    const code = [
      BANNER,
      'var import_node_http = require("node:http");',
      'module.exports.module = () => import_node_http;',
      'module.exports.serve = () => (0, import_node_http.createServer)();',
    ].join('\n');
    expect(lazyBuiltins(code)).toBe(code);
    expect(evaluate(code).required).toEqual(['node:http']);
  });
});
