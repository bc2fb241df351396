/**
 * The git metadata that decides what git runs, through the neo binary: read-only inside every
 * sandbox (bwrap), and compared after every step, confined or not (`sandbox: none`): a step that
 * changed it fails with FLOW_ESCAPE naming the file, and the summary never tells the user to run
 * git in the tampered workspace. The attacks are the real ones: a `.git/commondir` leading to a
 * config with `core.fsmonitor` (run by the user's next `git status`), a worktree's `.git` file
 * pointing at a git dir of the step's making.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runNeo } from '../helpers/cli.js';
import { tempDir, writeTree } from '../helpers/temp.js';
import { git } from './flow-helpers.js';

/** Makes `../evil`, a git dir whose config runs `touch ../pwned` at any `git status`, and points `.git/commondir` there. */
const PLANT_COMMONDIR =
  'mkdir -p ../evil && cp -r .git/objects .git/refs ../evil/ && printf "[core]\\n\\trepositoryformatversion = 0\\n\\tfsmonitor = \\"touch ../pwned; false\\"\\n" > ../evil/config && echo "$(cd ../evil && pwd)" > .git/commondir';
/** Points a worktree's `.git` file at a git dir the step made. */
const PLANT_GITFILE =
  'mkdir -p ../evil-wt && cp -r "$(git rev-parse --git-dir)/." ../evil-wt/ && echo "gitdir: $(cd ../evil-wt && pwd)" > .git';

async function project(files: Record<string, string>) {
  const root = await tempDir('neo-e2e-gitmeta-');
  const repo = join(root, 'repo');
  const home = join(root, 'neo-home');
  await writeTree(repo, { 'README.md': 'hello\n', ...files });
  await git(repo, 'init', '-q', '-b', 'main');
  await git(repo, 'add', '-A');
  await git(repo, '-c', 'user.name=t', '-c', 'user.email=t@example.com', 'commit', '-qm', 'init');
  const neo = (args: string[]) => runNeo(args, { cwd: repo, env: { NEO_HOME: home } });
  return { root, repo, home, neo };
}

interface Summary {
  status: string;
  cause: string | null;
  exitCode: number;
  lines: string[];
  workspace: { root: string };
  steps: Array<{ id: string; status: string; error: { code: string; message: string } | null }>;
}
const summary = (stdout: string) => JSON.parse(stdout.trim().split('\n').at(-1)!) as Summary;

const runPlan = (sandbox: string, command: string) =>
  `name: plant\nsandbox: ${sandbox}\nsteps:\n  - id: a\n    run: '${command.replace(/'/g, "''")}'\n`;

describe('after every step, confined or not, the git metadata is what it was', () => {
  it('in place: a run step that points .git/commondir at a config of its own fails, naming the file', async () => {
    const { repo, neo } = await project({ 'plan.yaml': runPlan('none', PLANT_COMMONDIR) });
    const result = await neo(['flow', 'run', 'plan.yaml', '--isolation', 'inplace', '--json']);
    const out = summary(result.stdout);
    expect(out, result.stdout).toMatchObject({ status: 'failed', cause: 'FLOW_ESCAPE', exitCode: 1 });
    expect(out.steps[0]!.error!.message).toContain(join(repo, '.git', 'commondir'));
    expect(out.lines.join('\n')).toMatch(/git metadata changed during the run: .*\.git\/commondir/);
    expect(out.lines.join('\n')).toMatch(/do not run git/);
  });

  it("in a worktree: a run step that rewrites the worktree's .git file fails, and the summary suggests no git command", async () => {
    const { neo } = await project({ 'plan.yaml': runPlan('none', PLANT_GITFILE) });
    const result = await neo(['flow', 'run', 'plan.yaml', '--json']);
    const out = summary(result.stdout);
    expect(out, result.stdout).toMatchObject({ status: 'failed', cause: 'FLOW_ESCAPE', exitCode: 1 });
    expect(out.steps[0]!.error!.message).toContain(join(out.workspace.root, '.git'));
    expect(out.lines.some((line) => /\bgit (-C|status|log|merge|worktree)\b/.test(line))).toBe(false);
    expect(out.lines.join('\n')).toMatch(/git metadata changed during the run/);
  });

  it('an agent step at full posture, unconfined, that plants a hook fails the same way', async () => {
    const { repo, neo } = await project({
      'plan.yaml':
        'name: hook\ndefaults: { backend: script, maxPosture: full, posture: full, maxRounds: 2 }\nsandbox: none\nsteps:\n  - id: work\n    brief: Do it.\n    script: s.yaml\n    requireChange: false\n',
      's.yaml':
        'turns:\n  - - run: { command: "printf \'#!/bin/sh\\\\ntouch ../pwned\\\\n\' > .git/hooks/pre-commit && chmod +x .git/hooks/pre-commit" }\n    - say: Done.\n',
    });
    const result = await neo(['flow', 'run', 'plan.yaml', '--isolation', 'inplace', '--json']);
    expect(existsSync(join(repo, '.git', 'hooks', 'pre-commit'))).toBe(true);
    const out = summary(result.stdout);
    expect(out, result.stdout).toMatchObject({ status: 'failed', cause: 'FLOW_ESCAPE', exitCode: 1 });
    expect(out.steps[0]!.error!.message).toContain(join(repo, '.git', 'hooks', 'pre-commit'));
  });
});

describe('inside bwrap the git metadata is read-only', () => {
  it('in place: .git/commondir, .git/config and a hook cannot be written', async () => {
    const { repo, neo } = await project({
      'plan.yaml': runPlan(
        'bwrap',
        'for f in .git/commondir .git/config .git/hooks/pre-commit .git/info/attributes; do echo x >> $f || echo "refused $f"; done',
      ),
    });
    const config = readFileSync(join(repo, '.git', 'config'), 'utf8');
    const result = await neo(['flow', 'run', 'plan.yaml', '--isolation', 'inplace', '--json']);
    expect(summary(result.stdout), result.stdout).toMatchObject({ status: 'succeeded' });
    for (const f of ['.git/commondir', '.git/config', '.git/hooks/pre-commit', '.git/info/attributes'])
      expect(result.stdout).toContain(`refused ${f}`);
    expect(result.stdout).toMatch(/Read-only file system/);
    expect(existsSync(join(repo, '.git', 'commondir'))).toBe(false);
    expect(readFileSync(join(repo, '.git', 'config'), 'utf8')).toBe(config);
  });

  it("in a worktree: the .git file and the worktree's git dir cannot be written", async () => {
    const { neo } = await project({
      'plan.yaml': runPlan(
        'bwrap',
        'echo "gitdir: /elsewhere" > .git || echo "refused .git"; d=$(git rev-parse --git-dir); echo /elsewhere > "$d/commondir" || echo "refused commondir"; echo x >> "$d/../../config" || echo "refused config"',
      ),
    });
    const result = await neo(['flow', 'run', 'plan.yaml', '--json']);
    const out = summary(result.stdout);
    expect(out, result.stdout).toMatchObject({ status: 'succeeded' });
    for (const what of ['.git', 'commondir', 'config']) expect(result.stdout).toContain(`refused ${what}`);
    expect(readFileSync(join(out.workspace.root, '.git'), 'utf8')).toMatch(/^gitdir: .*\/repo\/\.git\/worktrees\//);
  });

  it('a .git a step plants (in a copy) never makes a later sandbox show a hidden folder it names', async () => {
    const { root } = await project({
      'plan.yaml': [
        'name: plant',
        'sandbox: bwrap',
        'steps:',
        `  - { id: plant, continueOnError: true, run: 'mkdir -p .git/objects && echo "$HOME" > .git/commondir && echo "gitdir: $HOME" > .git/gitdir' }`,
        `  - { id: read, needs: [plant], join: all_done, run: 'cat "$HOME/.ssh/id_rsa" || echo hidden' }`,
        '',
      ].join('\n'),
    });
    await writeTree(join(root, 'user'), { '.ssh/id_rsa': 'PRIVATE KEY\n' });
    const result = await runNeo(['flow', 'run', 'plan.yaml', '--isolation', 'copy', '--json'], {
      cwd: join(root, 'repo'),
      env: { NEO_HOME: join(root, 'neo-home'), HOME: join(root, 'user') },
    });
    expect(result.stdout).not.toContain('PRIVATE KEY');
    const out = summary(result.stdout);
    expect(out.steps.map((s) => [s.id, s.status, s.error?.code ?? null])).toEqual([
      ['plant', 'failed', 'FLOW_ESCAPE'],
      // The planted layout still misleads git: every later step fails too, after running blind.
      ['read', 'failed', 'FLOW_ESCAPE'],
    ]);
    expect(result.stdout).toMatch(/"stdout":"hidden\\n"/);
  });
});
