#!/usr/bin/env node
// `npm run bench -- <name> [args…]`: builds (tsc compiles bench/ into dist/bench/) and runs
// dist/bench/<name>.js. With no name, lists the benchmarks. Benchmarks are not part of npm test.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const [name, ...args] = process.argv.slice(2);
const available = readdirSync(join(root, 'bench'))
  .filter((f) => f.endsWith('.ts'))
  .map((f) => f.slice(0, -3));
if (!name || !available.includes(name)) {
  console.error(`usage: npm run bench -- <${available.join('|')}> [args…]`);
  process.exit(name ? 2 : 0);
}
// The whole build: tsc, the packaged snapshot and the bundle, so the benchmark measures what ships.
if (!process.env.NEO_BENCH_NO_BUILD) execFileSync('npm', ['run', '--silent', 'build'], { cwd: root, stdio: 'inherit' });
const script = join(root, 'dist', 'bench', `${name}.js`);
if (!existsSync(script)) {
  console.error(`missing ${script}: is bench/${name}.ts in tsconfig.json's include?`);
  process.exit(70);
}
const result = spawnSync(process.execPath, ['--expose-gc', script, ...args], { stdio: 'inherit' });
process.exit(result.status ?? 70);
