#!/usr/bin/env node
// Part of `npm run build`: bundles the CLI (esbuild, ESM with code splitting) into dist/bin/neo.js,
// the `neo` binary. One file for the start-up path instead of ~100 modules cuts the module
// loader's share of every command's start-up; each command is still a lazily loaded chunk.
// `yaml` stays external (loaded on first use with createRequire) and so do the precompiled
// validators (dist/engine/generated/validators.cjs, written by tsc).
import { build } from 'esbuild';
import { rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const outdir = join(root, 'dist', 'bin');
rmSync(outdir, { recursive: true, force: true });
await build({
  absWorkingDir: root,
  entryPoints: { neo: 'cli/bin.ts' },
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  outdir,
  chunkNames: 'chunks/[name]-[hash]',
  external: ['fsevents', 'yaml'],
  // Bundled CommonJS dependencies call `require`; give ESM chunks one.
  banner: { js: "import { createRequire as __neoCreateRequire } from 'node:module'; const require = __neoCreateRequire(import.meta.url);" },
  logLevel: 'warning',
});
