/**
 * The default isolation on a repository of real size: a 1-step flow (`run: "true"`, a worktree
 * of its own) run by the `neo` binary in a generated, committed repository of --files files
 * (~4 KB each, in folders of 14, like a mid-sized project), against what git itself needs for
 * the same checkout: `git worktree add --detach` and the checkout's first `git status
 * --porcelain` (which hashes every file the checkout just wrote), as two processes. Interleaved;
 * the worktrees are removed after each rep, untimed. Wall time of whole processes, medians.
 * `NEO_BENCH_BIN=<path to neo.js>` measures another build. Sizes: --files=2800 --reps=9
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { neoBinPath } from '../engine/util/package-root.js';
import { interleave, numberArgs, ratio, report, type Figure } from './harness.js';

const size = numberArgs({ files: 2800, reps: 9 });
const BIN = process.env.NEO_BENCH_BIN ?? neoBinPath();
const root = mkdtempSync(join(tmpdir(), 'neo-bench-worktree-repo-'));
const repo = join(root, 'repo');
const home = join(root, 'home');
const git = (cwd: string, ...args: string[]) => execFileSync('git', args, { cwd, stdio: 'ignore' });

mkdirSync(repo);
for (let i = 0; i < size.files; i++) {
  const dir = join(repo, 'src', `area${Math.floor(i / 140)}`, `mod${Math.floor(i / 14) % 10}`);
  if (i % 14 === 0) mkdirSync(dir, { recursive: true });
  writeFileSync(
    join(dir, `file${i}.ts`),
    `export const v${i} = ${i};\n${'// filler line of a source file\n'.repeat(120)}`,
  );
}
writeFileSync(join(repo, 'plan.yaml'), 'name: one\nsteps:\n  - { id: a, run: "true" }\n');
git(repo, 'init', '-q', '-b', 'main');
git(repo, 'add', '-A');
git(repo, '-c', 'user.name=bench', '-c', 'user.email=bench@example.com', 'commit', '-qm', 'bench');

/** Removes every worktree but the checkout (neo's run keeps its own for the user to look at). */
function removeWorktrees(): void {
  const list = execFileSync('git', ['worktree', 'list', '--porcelain'], { cwd: repo, encoding: 'utf8' });
  for (const line of list.split('\n'))
    if (line.startsWith('worktree ') && line.slice(9) !== repo)
      git(repo, 'worktree', 'remove', '--force', line.slice(9));
  git(repo, 'worktree', 'prune');
}

function timed(run: () => void): number {
  const started = performance.now();
  run();
  const ms = performance.now() - started;
  removeWorktrees();
  return ms;
}

let made = 0;
const neo = () =>
  timed(() => {
    const result = spawnSync(process.execPath, [BIN, 'flow', 'run', 'plan.yaml'], {
      cwd: repo,
      env: { ...process.env, NEO_HOME: home, NO_COLOR: '1' },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    if (result.status !== 0) throw new Error(`neo flow run exited ${result.status}: ${String(result.stderr)}`);
  });
const gitFloor = () =>
  timed(() => {
    const dir = join(root, `wt-${made++}`);
    git(repo, 'worktree', 'add', '-q', '--detach', dir);
    git(dir, 'status', '--porcelain');
  });

try {
  console.log(
    `worktree-repo: ${size.files} files; ${BIN}; load average ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}`,
  );
  neo();
  gitFloor();
  const figure: Figure = {
    name: `1-step flow, default isolation, ${size.files}-file repository vs git worktree add + first git status`,
    ...(await interleave(size.reps, neo, gitFloor)),
    unit: 'ms',
  };
  report(figure);
  const value = ratio(figure);
  console.log(
    `worktree-repo: ${value.toFixed(2)} (goal ≤ 1.2) ${value <= 1.2 ? 'ok' : 'MISSED'}; load average after ${loadavg()[0]!.toFixed(2)}`,
  );
} finally {
  rmSync(root, { recursive: true, force: true });
}
