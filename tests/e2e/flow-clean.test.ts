/**
 * Housekeeping through the neo binary: `neo flow list` shows each run's disk use, the summary
 * says how to remove a run's workspace, and `neo flow clean` removes worktrees, `neo/<runId>`
 * branches and run folders by status and age — never a live run, never work that lives nowhere
 * else unless asked with `--force`, and nothing at all with `--dry-run`.
 */
import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runNeo } from '../helpers/cli.js';
import { tempDir, writeTree } from '../helpers/temp.js';
import { git, spawnNeo, waitForOutput } from './flow-helpers.js';

const flow = (name: string, command: string) =>
  `name: ${name}\nsteps:\n  - id: s\n    run: ${JSON.stringify(command)}\n`;

async function repoWith(files: Record<string, string>) {
  const root = await tempDir('neo-e2e-clean-');
  const repo = join(root, 'repo');
  const home = join(root, 'home');
  await writeTree(repo, { 'README.md': 'hello\n', ...files });
  await git(repo, 'init', '-q', '-b', 'main');
  await git(repo, 'add', '-A');
  await git(repo, '-c', 'user.name=t', '-c', 'user.email=t@example.com', 'commit', '-qm', 'init');
  const neo = (...args: string[]) => runNeo(args, { cwd: repo, env: { NEO_HOME: home } });
  return { repo, home, neo };
}

interface Cleaned {
  dryRun: boolean;
  removed: Array<{ runId: string; removes: { workspace: string[]; branch?: string } }>;
  kept: Array<{ runId: string; kept: { reason: string; force: boolean } }>;
}

const runIdOf = (stdout: string) => /run (\S+) · flow /.exec(stdout)![1]!;

describe('neo flow clean', () => {
  it('removes what holds no work, keeps uncommitted and unmerged work unless --force, and --dry-run removes nothing', async () => {
    const { repo, home, neo } = await repoWith({
      'nothing.flow.yaml': flow('nothing', 'true'),
      'edit.flow.yaml': flow('edit', 'echo new > created.txt'),
      'broken.flow.yaml': flow('broken', 'echo half > half.txt; exit 1'),
    });
    const nothing = await neo('flow', 'run', 'nothing.flow.yaml');
    const edit = await neo('flow', 'run', 'edit.flow.yaml');
    const broken = await neo('flow', 'run', 'broken.flow.yaml');
    const [nothingId, editId, brokenId] = [nothing, edit, broken].map((r) => runIdOf(r.stdout));
    // Every summary says how to remove the run's workspace.
    expect(nothing.stdout).toContain(`nothing changed; remove it with: neo flow clean ${nothingId}`);
    expect(edit.stdout).toContain(`remove it (its commits too): neo flow clean ${editId} --force`);
    expect(broken.stdout).toContain(`remove it (its uncommitted work too): neo flow clean ${brokenId} --force`);

    // Disk use per run, in the table and in --json.
    const list = await neo('flow', 'list');
    expect(list.stdout.split('\n')[0]).toMatch(/\bDISK\b/);
    for (const id of [nothingId, editId, brokenId])
      expect(list.stdout.split('\n').find((line) => line.startsWith(id!))).toMatch(/\d+(\.\d)? (KB|MB)/);
    const listed = JSON.parse((await neo('flow', 'list', '--json')).stdout) as Array<{ diskBytes: number }>;
    expect(listed.every((r) => r.diskBytes > 0)).toBe(true);

    const worktree = (id: string) => join(home, 'worktrees', id);
    const branches = async () =>
      (await git(repo, 'branch', '--list', 'neo/*', '--format=%(refname:short)')).split('\n');

    const dry = await neo('flow', 'clean', '--dry-run', '--json');
    expect(dry.exitCode).toBe(0);
    const planned = JSON.parse(dry.stdout) as Cleaned;
    expect(planned.dryRun).toBe(true);
    expect(planned.removed.map((r) => r.runId)).toEqual([nothingId]);
    expect(planned.kept.map((r) => [r.runId, r.kept.force])).toEqual([
      [brokenId, true],
      [editId, true],
    ]);
    expect(planned.kept.find((r) => r.runId === brokenId)!.kept.reason).toContain('uncommitted work');
    expect(planned.kept.find((r) => r.runId === editId)!.kept.reason).toMatch(/1 commit on neo\/\S+ not merged/);
    expect(existsSync(worktree(nothingId!))).toBe(true);
    expect(existsSync(join(home, 'runs', nothingId!))).toBe(true);

    // What a killed run's gate leaves in NEO_HOME/gates goes with the run.
    await mkdir(join(home, 'gates', nothingId!, 's'), { recursive: true });
    const clean = await neo('flow', 'clean');
    expect(clean.exitCode).toBe(0);
    expect(clean.stdout).toMatch(new RegExp(`removed ${nothingId} nothing succeeded`));
    expect(clean.stdout).toMatch(
      new RegExp(`kept ${editId} edit succeeded \\(\\d+ KB\\): 1 commit on neo/${editId} .*\\(--force removes it\\)`),
    );
    expect(existsSync(worktree(nothingId!))).toBe(false);
    expect(existsSync(join(home, 'runs', nothingId!))).toBe(false);
    expect(existsSync(join(home, 'gates', nothingId!))).toBe(false);
    expect(await branches()).toEqual([`neo/${brokenId}`, `neo/${editId}`].sort());

    // Merged, the run's branch holds nothing else: it goes without --force.
    await git(repo, 'merge', '-q', `neo/${editId}`);
    const afterMerge = JSON.parse((await neo('flow', 'clean', '--json')).stdout) as Cleaned;
    expect(afterMerge.removed.map((r) => r.runId)).toEqual([editId]);
    expect(existsSync(worktree(editId!))).toBe(false);

    // By status, and --force for the work only it holds.
    const young = JSON.parse((await neo('flow', 'clean', '--force', '--older-than', '1h', '--json')).stdout) as Cleaned;
    expect(young.removed).toEqual([]);
    const forced = JSON.parse(
      (await neo('flow', 'clean', '--status', 'failed', '--force', '--json')).stdout,
    ) as Cleaned;
    expect(forced.removed.map((r) => r.runId)).toEqual([brokenId]);
    expect(await branches()).toEqual(['']);
    expect(existsSync(join(home, 'runs', brokenId!))).toBe(false);
    expect(await git(repo, 'worktree', 'list', '--porcelain')).not.toContain('worktrees/');
    expect(await git(repo, 'status', '--porcelain')).toBe('');
  });

  it('never removes a live run, even with --force', async () => {
    const { repo, home, neo } = await repoWith({
      'wait.flow.yaml': 'name: wait\nsteps:\n  - id: ok\n    approval: { prompt: "go on?" }\n',
    });
    const child = spawnNeo(['flow', 'run', 'wait.flow.yaml'], { cwd: repo, home });
    const [, runId] = await waitForOutput(child, /neo flow approve (\S+) ok --decision/);
    const cleaned = JSON.parse((await neo('flow', 'clean', '--force', '--json')).stdout) as Cleaned;
    expect(cleaned.removed).toEqual([]);
    expect(cleaned.kept).toEqual([
      expect.objectContaining({ runId, kept: { reason: expect.stringContaining('live'), force: false } }),
    ]);
    expect(existsSync(join(home, 'runs', runId!))).toBe(true);
    expect((await neo('flow', 'approve', runId!, 'ok', '--decision', 'approve')).exitCode).toBe(0);
    expect((await child).exitCode).toBe(0);
  });
});
