/**
 * What every `neo` command loads before it does anything: the binary and the chunks it imports
 * statically (and theirs). Neither neo's own agent nor the yaml package may be among them: a
 * static import that drags them in (the learning area once did, through the lessons brief on the
 * flow's path) costs every `neo flow run` tens of milliseconds it never uses. The same for what
 * `neo --help`, `neo validate` and `neo flow run` load (docs/architecture.md, "Start-up").
 * Needs `npm run build`.
 */
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { NEO_BIN } from '../helpers/cli.js';
import { tempDir } from '../helpers/temp.js';

/** The bundle's entry chunk, which the binary (the chunk loader) loads. */
const MAIN = join(dirname(NEO_BIN), 'neo-main.js');

/**
 * The files a chunk imports statically, resolved: the bundle's chunks are CommonJS (loaded with
 * V8's code cache, cli/boot/chunk-loader.ts), where a static import is a top-level
 * `var import_x = require("./x.js");` and a dynamic one a `require` inside a function.
 */
function staticImports(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  return [...text.matchAll(/^(?:var \w+ = )?require\("(\.[^"]+)"\);$/gm)].map((m) => join(dirname(file), m[1]!));
}

function startUpClosure(entry: string): string[] {
  const seen = new Set([entry]);
  const queue = [entry];
  while (queue.length > 0) {
    for (const next of staticImports(queue.shift()!)) {
      if (seen.has(next)) continue;
      seen.add(next);
      queue.push(next);
    }
  }
  return [...seen];
}

describe("the binary's start-up path", () => {
  it("loads neither neo's own agent nor the yaml package", () => {
    const files = startUpClosure(MAIN);
    expect(files.length).toBeGreaterThan(1);
    for (const file of files) {
      const text = readFileSync(file, 'utf8');
      expect({ file, yaml: /^var \w+ = (?:__toESM\()?require\("yaml"\)/m.test(text) }).toEqual({ file, yaml: false });
      expect({ file, agent: text.includes('\n// engine/agent/') }).toEqual({ file, agent: false });
    }
  });
});

/** The source files bundled into the closure (esbuild heads each module with `//! <path>`). */
function sourcesOf(files: string[]): string[] {
  return files.flatMap((file) =>
    [...readFileSync(file, 'utf8').matchAll(/^\/\/! ((?:engine|cli)\/\S+\.ts)$/gm)].map((m) => m[1]!),
  );
}

/** The lazily loaded chunk of a command group (`flow-commands-<hash>.js`). */
function groupChunk(name: string): string {
  const chunks = join(dirname(NEO_BIN), 'chunks');
  const file = readdirSync(chunks).find((f) => f.startsWith(`${name}-`));
  if (file === undefined) throw new Error(`no ${name} chunk in ${chunks}`);
  return join(chunks, file);
}

/** Node's own modules a `neo` command loaded (process.moduleLoadList), run in `dir`. */
function builtinsLoaded(dir: string, args: string[]): string[] {
  const probe = join(dir, 'probe.cjs');
  const out = join(dir, 'loaded.json');
  writeFileSync(
    probe,
    `process.on('exit', () => require('fs').writeFileSync(${JSON.stringify(out)}, JSON.stringify(process.moduleLoadList)));\n`,
  );
  execFileSync(process.execPath, ['-r', probe, NEO_BIN, ...args], {
    cwd: dir,
    env: { ...process.env, NEO_HOME: join(dir, 'home') },
    stdio: 'ignore',
  });
  return (JSON.parse(readFileSync(out, 'utf8')) as string[]).filter((m) => m.startsWith('NativeModule '));
}

describe('the chunks', () => {
  it('are ASCII: one `—` in a kept comment makes V8 hold a whole chunk as a two-byte string', () => {
    const bin = dirname(NEO_BIN);
    const files = [MAIN, ...readdirSync(join(bin, 'chunks')).map((f) => join(bin, 'chunks', f))];
    const wide = files.filter((file) => /[^\x00-\x7f]/.test(readFileSync(file, 'utf8')));
    expect(wide).toEqual([]);
  });
});

describe("Node's own modules a command loads", () => {
  it('`neo --help`: neither node:child_process (commander requires it for what neo never does) nor node:fs/promises', async () => {
    const loaded = builtinsLoaded(await tempDir('neo-e2e-builtins-'), ['--help']);
    expect(loaded).toContain('NativeModule vm');
    expect(loaded.filter((m) => /^NativeModule (child_process|fs\/promises|net|readline)$/.test(m))).toEqual([]);
  });

  it("`neo validate` of the packaged layer: not node:crypto (the set hash and reference checks are the build's)", async () => {
    const dir = await tempDir('neo-e2e-builtins-');
    const loaded = builtinsLoaded(dir, ['validate']);
    expect(loaded).toContain('NativeModule vm');
    expect(loaded.filter((m) => /^NativeModule (crypto|child_process|fs\/promises)$/.test(m))).toEqual([]);
  });

  it('a `run:`-only flow: the spawn and the store, not http (a metrics port), readline (a prompt) or fs/promises', async () => {
    const dir = await tempDir('neo-e2e-builtins-');
    writeFileSync(
      join(dir, 'plan.yaml'),
      'name: one\nworkspace: { isolation: inplace }\nsteps:\n  - { id: a, run: "true" }\n',
    );
    // The first run creates the home's folders (the one use of fs/promises); the second is a user's every run.
    builtinsLoaded(dir, ['flow', 'run', 'plan.yaml']);
    const loaded = builtinsLoaded(dir, ['flow', 'run', 'plan.yaml']);
    expect(loaded).toEqual(expect.arrayContaining(['NativeModule child_process', 'NativeModule crypto']));
    expect(
      loaded.filter((m) =>
        /^NativeModule (http|https|readline|readline\/promises|worker_threads|fs\/promises)$/.test(m),
      ),
    ).toEqual([]);
  });
});

/**
 * Pure modules of those areas that import nothing at run time, small enough that the bundle
 * shares them with every command (scripts/bundle.mjs, SMALL_CHUNK_BYTES): loading one brings no
 * other code along.
 */
const SHARED_LEAVES = new Set(['engine/session/diff/summary.ts']);

describe('what each command loads', () => {
  it('`neo --help` loads the process registry, not git, the sandbox or the posture module', () => {
    const sources = sourcesOf(startUpClosure(MAIN));
    expect(sources).toContain('engine/execution/registry/live-groups.ts');
    expect(sources.filter((s) => /^engine\/(posture\/|execution\/(git|sandbox|paths))/.test(s))).toEqual([]);
  });

  it('`neo validate` loads the definitions, not the flow, session, learning or server code', () => {
    const sources = sourcesOf(startUpClosure(groupChunk('definitions-commands')));
    expect(sources).toContain('engine/definitions/loader.ts');
    expect(
      sources.filter((s) => /^engine\/(flow|session|learning|server|capabilities)\//.test(s) && !SHARED_LEAVES.has(s)),
    ).toEqual([]);
  });

  it('`neo flow run` loads the flow runtime, not the session service, learning or capabilities', () => {
    const sources = sourcesOf(startUpClosure(groupChunk('flow-commands')));
    expect(sources).toContain('engine/flow/runtime/start-run.ts');
    // The step guard's diff helpers are their own sub-area; the rest of engine/session is not loaded.
    expect(sources.filter((s) => /^engine\/(session\/(?!diff\/)|learning\/|capabilities\/)/.test(s))).toEqual([]);
  });
});
