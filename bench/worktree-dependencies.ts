/**
 * A worktree ready with the project's dependencies: neo's `prepareWorkspace` of a committed
 * project whose `node_modules` (git-ignored) weighs --mb megabytes — `git worktree add` plus the
 * checkout's dependency folders lent (engine/flow/workspace/lend.ts: a mirror of links) — versus
 * `git worktree add` plus `cp -a node_modules` (the install copied, the least an install in the
 * worktree would write) and plus `cp -al` (hard links: as fast as a copy gets on ext4, which has
 * no reflinks, and a write through one changes the checkout's file). npm ci from its cache writes
 * the same bytes as the copy and more. Sizes: --mb=200 --packages (derived) --reps=5.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { newRunId } from '../engine/flow/runtime/ids.js';
import { prepareWorkspace } from '../engine/flow/workspace/index.js';
import { interleave, numberArgs, report } from './harness.js';

const size = numberArgs({ mb: 200, reps: 5 });
const root = mkdtempSync(join(tmpdir(), 'neo-bench-worktree-deps-'));
const project = join(root, 'project');
const home = join(root, 'home');
const FILE = Buffer.alloc(7000, 'x');
let files = 0;
let packages = 0;
mkdirSync(join(project, 'src'), { recursive: true });
writeFileSync(join(project, 'src', 'index.js'), 'module.exports = 1;\n');
writeFileSync(join(project, '.gitignore'), 'node_modules/\n');
for (; files * FILE.length < size.mb * 1e6; packages++) {
  const dir = join(project, 'node_modules', packages % 10 === 0 ? `@scope${packages}/pkg` : `pkg${packages}`);
  for (let sub = 0; sub < 6; sub++) {
    mkdirSync(join(dir, `lib${sub}`), { recursive: true });
    for (let f = 0; f < 8; f++, files++) writeFileSync(join(dir, `lib${sub}`, `f${f}.js`), FILE);
  }
  writeFileSync(join(dir, 'package.json'), '{}\n');
  files++;
}
const git = (cwd: string, ...args: string[]) => execFileSync('git', args, { cwd, stdio: 'ignore' });
git(project, 'init', '-q', '-b', 'main');
git(project, 'add', '-A');
git(project, '-c', 'user.name=b', '-c', 'user.email=b@example.com', 'commit', '-qm', 'init');

let made = 0;
const timed = async (make: (dir: string) => Promise<string> | string): Promise<number> => {
  const started = performance.now();
  const dir = await make(join(root, `wt-${made++}`));
  const ms = performance.now() - started;
  git(project, 'worktree', 'remove', '--force', dir);
  return ms;
};
const neo = () =>
  timed(async () => (await prepareWorkspace({ projectDir: project, home, runId: newRunId() })).record.root);
const copied = (flags: string) => () =>
  timed((dir) => {
    git(project, 'worktree', 'add', '-q', '--detach', dir);
    execFileSync('cp', [flags, join(project, 'node_modules'), join(dir, 'node_modules')]);
    return dir;
  });

try {
  await neo();
  await copied('-a')();
  const full = await interleave(size.reps, neo, copied('-a'));
  const hard = await interleave(size.reps, neo, copied('-al'));
  const label = `a worktree ready with a ${size.mb} MB node_modules (${packages} packages, ${files} files)`;
  report({ name: `${label}, vs cp -a`, neo: full.neo, baseline: full.baseline, unit: 'ms' });
  report({ name: `${label}, vs cp -al`, neo: hard.neo, baseline: hard.baseline, unit: 'ms' });
  const worst = Math.max(full.neo, hard.neo);
  console.log(
    `worktree-dependencies: ready in ${worst.toFixed(0)} ms (target ≤ 2000 ms): ${worst <= 2000 ? 'met' : 'NOT met'}`,
  );
} finally {
  rmSync(root, { recursive: true, force: true });
}
