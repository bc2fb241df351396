/**
 * neo sandbox benchmark. (1) A `run: true` step's command in bwrap versus the same unconfined,
 * interleaved: the difference is the sandbox's own start cost per step (goal ≤ 15 ms); both run
 * inside the process bound, whose own cost (a pids cgroup made, joined and removed) is measured
 * apart: `sh -c true` spawned with and without `maxProcesses`. (2) The
 * fresh tree a step's gate runs on (git's view of the workspace written out from a private
 * snapshot, the protected paths restored), for a git workspace of `files` files with a few
 * edits, versus `cp -r` of the same tree (goal ratio ≤ 1.5).
 * Sizes: --reps=40 --files=1000 --copies=10.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { probeProcessBound, requireSandbox, spawnProcess } from '../engine/execution/index.js';
import { runCommand } from '../engine/flow/runtime/command.js';
import type { RunSite } from '../engine/flow/runtime/confine.js';
import { GateTrees } from '../engine/flow/workspace/gate-tree.js';
import { ProtectedBase } from '../engine/flow/workspace/protected-base.js';
import { interleave, numberArgs, report } from './harness.js';

const size = numberArgs({ reps: 40, files: 1000, copies: 10 });
const root = mkdtempSync(join(tmpdir(), 'neo-bench-sandbox-'));
const ws = join(root, 'ws');
const home = join(root, 'neo-home');
const runDir = join(home, 'runs', 'r1');
mkdirSync(runDir, { recursive: true });
for (let i = 0; i < size.files; i++) {
  const dir = join(ws, `src/d${i % 50}`);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, `f${i}.ts`), `export const v${i} = ${i};\n`.repeat(20));
}
mkdirSync(join(ws, 'tests'), { recursive: true });
writeFileSync(join(ws, 'tests', 'a.test.ts'), 'test\n');
const git = async (...args: string[]) => {
  const result = await spawnProcess(['git', ...args], { cwd: ws, env: process.env }).result;
  if (result.exitCode !== 0) throw new Error(result.stderr);
};
await git('init', '-q', '-b', 'main');
await git('add', '-A');
await git('-c', 'user.name=b', '-c', 'user.email=b@example.com', 'commit', '-qm', 'bench');

try {
  await requireSandbox('bwrap');
  const site: RunSite = { workspace: { isolation: 'copy', path: ws, root: ws, projectDir: ws }, home, runDir };
  const step = async (kind: 'bwrap' | 'none') => {
    const started = performance.now();
    const result = await runCommand({
      command: 'true',
      cwd: ws,
      env: {},
      sandbox: { setting: { kind, network: false, source: 'bench' }, site },
    });
    if (result.exitCode !== 0) throw new Error(`${kind}: ${result.spawnError ?? result.stderr}`);
    return performance.now() - started;
  };
  await step('bwrap');
  await step('none');
  const start = await interleave(
    size.reps,
    () => step('bwrap'),
    () => step('none'),
  );
  report({ name: 'run step `true`, bwrap vs unconfined', neo: start.neo, baseline: start.baseline, unit: 'ms' });
  console.log(`sandbox start cost per step: ${(start.neo - start.baseline).toFixed(1)} ms (goal ≤ 15 ms)`);

  const spawnTrue = async (maxProcesses?: number) => {
    const started = performance.now();
    const result = await spawnProcess(['/bin/sh', '-c', 'true'], {
      cwd: ws,
      env: process.env,
      ...(maxProcesses === undefined ? {} : { maxProcesses }),
    }).result;
    if (result.exitCode !== 0) throw new Error(result.spawnError ?? result.stderr);
    return performance.now() - started;
  };
  const bounded = await interleave(
    size.reps,
    () => spawnTrue(1024),
    () => spawnTrue(),
  );
  report({
    name: `sh -c true, process bound (${probeProcessBound().kind}) vs none`,
    neo: bounded.neo,
    baseline: bounded.baseline,
    unit: 'ms',
  });

  const workspace = { isolation: 'inplace' as const, path: ws, root: ws, projectDir: ws, repo: ws };
  const guarded = await ProtectedBase.open({
    root: ws,
    dir: join(home, 'gates', 'r1', 'bench', 'protected'),
    home,
    scope: 'r1/bench',
    startedAt: 'now',
    globs: ['tests/**'],
  });
  const trees = await GateTrees.open({
    workspace,
    home,
    dir: join(home, 'gates', 'r1', 'bench'),
    scope: 'r1/bench',
    startedAt: 'now',
    protected: guarded,
  });
  // The agent's change: an edit, a new file, a weakened test.
  writeFileSync(join(ws, 'src/d0/f0.ts'), 'export const v0 = 1;\n');
  writeFileSync(join(ws, 'src/new.ts'), 'export const added = true;\n');
  writeFileSync(join(ws, 'tests', 'a.test.ts'), 'weakened\n');
  const copyTo = join(root, 'copy');
  const fresh = async () => {
    const started = performance.now();
    const tree = await trees.fresh({ confined: true, cwd: ws });
    const ms = performance.now() - started;
    await tree.dispose();
    return ms;
  };
  const cp = async () => {
    const started = performance.now();
    const result = await spawnProcess(['cp', '-r', ws, copyTo], { cwd: root, env: process.env }).result;
    if (result.exitCode !== 0) throw new Error(result.stderr);
    const ms = performance.now() - started;
    rmSync(copyTo, { recursive: true, force: true });
    return ms;
  };
  await fresh();
  await cp();
  const copy = await interleave(size.copies, fresh, cp);
  report({
    name: `gate's fresh tree of ${size.files} files vs cp -r`,
    neo: copy.neo,
    baseline: copy.baseline,
    unit: 'ms',
  });
  const ok = start.neo - start.baseline <= 15 && copy.neo / copy.baseline <= 1.5;
  console.log(
    `sandbox: ${ok ? 'within' : 'outside'} the goals (start ≤ 15 ms per step, gate's fresh tree ≤ 1.5× cp -r)`,
  );
} finally {
  rmSync(root, { recursive: true, force: true });
}
