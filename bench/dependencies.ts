/**
 * Dependency folders benchmark: the stamp neo takes of a `node_modules`-like tree at an agent
 * step's base, before each gate and when the step settles (a stat walk of every entry's path,
 * inode, size, mode and ctime, hashed; engine/flow/workspace/dependencies.ts), versus GNU
 * `find -printf` of the same fields piped to `sha256sum` — the same walk with no JavaScript.
 * Also: how long the event loop was held at most during neo's walk (it yields between slices).
 * Sizes: --mb=200 (packages of 6 folders × 8 files of 7 KB) --reps=5.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { spawnProcess } from '../engine/execution/index.js';
import { stampFolders } from '../engine/flow/workspace/dependencies.js';
import { interleave, numberArgs, report } from './harness.js';

const size = numberArgs({ mb: 200, reps: 5 });
const root = mkdtempSync(join(tmpdir(), 'neo-bench-deps-'));
const FILE = Buffer.alloc(7000, 'x');
let files = 0;
for (let pkg = 0; files * FILE.length < size.mb * 1e6; pkg++) {
  const dir = join(root, 'node_modules', `pkg${pkg}`);
  for (let sub = 0; sub < 6; sub++) {
    mkdirSync(join(dir, `lib${sub}`), { recursive: true });
    for (let f = 0; f < 8; f++, files++) writeFileSync(join(dir, `lib${sub}`, `f${f}.js`), FILE);
  }
  writeFileSync(join(dir, 'package.json'), '{}\n');
  files++;
}

try {
  let held = 0;
  const stamp = async () => {
    let last = performance.now();
    const timer = setInterval(() => {
      const now = performance.now();
      held = Math.max(held, now - last);
      last = now;
    }, 1);
    const started = performance.now();
    await stampFolders(root, ['node_modules']);
    const ms = performance.now() - started;
    clearInterval(timer);
    return ms;
  };
  const find = async () => {
    const started = performance.now();
    const result = await spawnProcess(['sh', '-c', "find node_modules -printf '%P %y %i %s %m %C@\\n' | sha256sum"], {
      cwd: root,
      env: process.env,
    }).result;
    if (result.exitCode !== 0) throw new Error(result.stderr);
    return performance.now() - started;
  };
  await stamp();
  await find();
  const walk = await interleave(size.reps, stamp, find);
  report({
    name: `stamp of a ${size.mb} MB node_modules (${files} files)`,
    neo: walk.neo,
    baseline: walk.baseline,
    unit: 'ms',
  });
  console.log(`dependencies: the event loop was held at most ${held.toFixed(0)} ms at a time during neo's walk`);
} finally {
  rmSync(root, { recursive: true, force: true });
}
