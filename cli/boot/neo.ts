#!/usr/bin/env node
/**
 * The `neo` binary (`dist/bin/neo.js`, CommonJS): loads the bundle's entry chunk, and through it
 * every chunk a command needs, with V8's code cache (chunk-loader.ts). The build sets
 * NEO_CODE_CACHE_WRITE on a few training commands, which write the cache as they exit (`all`:
 * with the top level of every chunk they did not load).
 */
import { join } from 'node:path';
import { chunkLoader, codeCacheDir } from './chunk-loader.js';

/** The hash of the bundle's chunks, set by the build (scripts/bundle-commonjs.mjs). */
declare const NEO_BUNDLE_ID: string;

const loader = chunkLoader(__dirname, codeCacheDir(__dirname, NEO_BUNDLE_ID));
const write = process.env.NEO_CODE_CACHE_WRITE;
if (write === '1' || write === 'all') process.once('exit', () => loader.writeCache(write === 'all'));
loader.load(join(__dirname, 'neo-main.js'));
