import { execa } from 'execa';
import { readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../../helpers/temp.js';
import { commitAll, project, run } from './helpers.js';

/**
 * Programs planted for neo's git in the repository itself (as a repository's own config may
 * carry them, or a tool the user ran): a command with every power writes them before the run.
 */
const PLANT = (trap: string) => `
set -e
common=$(git rev-parse --git-common-dir)
git config core.fsmonitor "touch ${trap}/fsmonitor; false"
git config filter.evil.clean "touch ${trap}/clean; cat"
git config filter.evil.process "touch ${trap}/process"
git config core.hooksPath "$common/evil-hooks"
mkdir -p "$common/hooks" "$common/evil-hooks"
for hook in pre-commit commit-msg post-commit prepare-commit-msg; do
  printf '#!/bin/sh\ntouch ${trap}/%s\n' "$hook" > "$common/hooks/$hook"
  cp "$common/hooks/$hook" "$common/evil-hooks/$hook"
  chmod +x "$common/hooks/$hook" "$common/evil-hooks/$hook"
done
`;

const changing = `
name: change
steps:
  - id: change
    run: |
      echo '* filter=evil' > .gitattributes
      echo changed > file.txt
`;

const redirecting = (trap: string) => `
name: redirect
steps:
  - id: redirect
    run: |
      set -e
      mkdir -p evil/objects evil/refs
      echo 'ref: refs/heads/main' > evil/HEAD
      printf '[core]\\n\\tfsmonitor = "touch ${trap}/fsmonitor; false"\\n' > evil/config
      echo 'gitdir: evil' > .git
      echo changed > file.txt
`;

describe("the worktree commit: neo's git is never a command runner", () => {
  it('runs no hook, fsmonitor or filter the repository carries, and still commits', async () => {
    const trap = await tempDir('neo-trap-');
    const { dir, home } = await project({ 'plan.yaml': changing, 'file.txt': 'original\n' }, { git: true });
    await execa('/bin/sh', ['-c', PLANT(trap)], { cwd: dir });
    const { outcome } = await run(dir, home, { isolation: 'worktree' });
    expect(await readdir(trap)).toEqual([]);
    expect(outcome.status).toBe('succeeded');
    expect(outcome.summary?.commit).toMatch(/^[0-9a-f]+$/);
    const show = await execa('git', ['-c', 'core.fsmonitor=false', 'show', `neo/${outcome.runId}:file.txt`], {
      cwd: dir,
    });
    expect(show.stdout).toBe('changed');
  });

  it('a step that plants them during the run fails, naming what it changed; nothing runs or is committed', async () => {
    const trap = await tempDir('neo-trap-');
    const plan = `name: plant\nsteps:\n  - id: plant\n    run: |\n${PLANT(trap)
      .trim()
      .split('\n')
      .map((line) => `      ${line}`)
      .join('\n')}\n`;
    const { dir, home } = await project({ 'plan.yaml': plan, 'file.txt': 'original\n' }, { git: true });
    const { outcome } = await run(dir, home, { isolation: 'worktree' });
    expect(await readdir(trap)).toEqual([]);
    expect(outcome.state.steps.get('plant')).toMatchObject({ status: 'failed', error: { code: 'FLOW_ESCAPE' } });
    expect(outcome.state.steps.get('plant')!.error!.message).toContain(join(dir, '.git', 'config'));
    expect(outcome.summary?.commit).toBeUndefined();
    expect(outcome.summary?.lines.join('\n')).toMatch(/git metadata changed during the run: .*\.git\/config/);
  });

  it('commits nothing through a .git entry rewritten during the run, and says why', async () => {
    const trap = await tempDir('neo-trap-');
    const { dir, home } = await project({ 'plan.yaml': redirecting(trap), 'file.txt': 'original\n' }, { git: true });
    const { outcome } = await run(dir, home, { isolation: 'worktree' });
    expect(await readdir(trap)).toEqual([]);
    expect(outcome.summary?.commit).toBeUndefined();
    expect(outcome.state.steps.get('redirect')).toMatchObject({ status: 'failed', error: { code: 'FLOW_ESCAPE' } });
    expect(outcome.summary?.lines.join('\n')).toMatch(/git metadata changed during the run: .*\/\.git\b/);
    expect(outcome.summary?.lines.join('\n')).not.toMatch(/git -C/);
  });
});

/** An agent on the script backend at full posture, whose one turn runs `command` and edits a file. */
async function agentRun(command: string, isolation: 'inplace' | 'worktree') {
  const scripts = await tempDir('neo-scripts-');
  const script = join(scripts, 'plant.yaml');
  await writeFile(
    script,
    `turns:\n  - - run: { command: ${JSON.stringify(command)} }\n    - write: { path: file.txt, content: "changed\\n" }\n    - say: Done.\n`,
  );
  const plan = `
name: agent-plants
defaults: { backend: script, maxPosture: full, posture: full, maxRounds: 2 }
steps:
  - id: work
    brief: Plant things.
    script: ${script}
`;
  const { dir, home } = await project({ 'plan.yaml': plan, 'file.txt': 'original\n' }, { git: true });
  return { dir, home, ...(await run(dir, home, { isolation })) };
}

describe("an agent at full posture plants programs for neo's git: none of them runs", () => {
  it('in place: fsmonitor, a filter and hooks in .git; the turn diff and the step diff run none, and the step fails', async () => {
    const trap = await tempDir('neo-trap-');
    const { outcome } = await agentRun(
      [
        `git config core.fsmonitor "touch ${trap}/fsmonitor; false"`,
        `git config filter.evil.clean "touch ${trap}/clean; cat"`,
        `printf '#!/bin/sh\\ntouch ${trap}/hook\\n' > .git/hooks/post-commit`,
        'chmod +x .git/hooks/post-commit',
        "echo '* filter=evil' > .gitattributes",
      ].join('; '),
      'inplace',
    );
    expect(await readdir(trap)).toEqual([]);
    const work = outcome.state.steps.get('work')!;
    expect(work).toMatchObject({ status: 'failed', verdict: 'escaped', error: { code: 'FLOW_ESCAPE' } });
    expect(work.error!.message).toMatch(/git metadata.*\.git\/config.*\.git\/hooks\/post-commit/);
    expect((work.outputs!.diff as { files: Array<{ path: string }> }).files.map((f) => f.path)).toEqual([
      '.gitattributes',
      'file.txt',
    ]);
  });

  it('in a worktree: a .git rewritten to a folder the agent wrote fails the step, and nothing runs or is committed', async () => {
    const trap = await tempDir('neo-trap-');
    const { outcome } = await agentRun(
      [
        'mkdir -p evil/objects evil/refs',
        "echo 'ref: refs/heads/main' > evil/HEAD",
        `printf '[core]\\n\\tfsmonitor = "touch ${trap}/fsmonitor; false"\\n' > evil/config`,
        "echo 'gitdir: evil' > .git",
      ].join('; '),
      'worktree',
    );
    expect(await readdir(trap)).toEqual([]);
    expect(outcome.state.steps.get('work')).toMatchObject({
      status: 'failed',
      verdict: 'escaped',
      error: { code: 'FLOW_GIT_DIR_CHANGED' },
    });
    expect(outcome.summary?.commit).toBeUndefined();
  });
});

describe('in place, git never looks above the workspace root', () => {
  it('a project whose .git a step removed is not the enclosing repository: the agent step refuses to run', async () => {
    const scripts = await tempDir('neo-scripts-');
    const script = join(scripts, 'write.yaml');
    await writeFile(script, 'turns:\n  - - write: { path: out.txt, content: "x\\n" }\n    - say: Done.\n');
    const plan = `
name: outer
defaults: { backend: script, maxPosture: full, posture: full, maxRounds: 2 }
steps:
  - id: unmake
    run: rm -rf .git
  - id: work
    needs: [unmake]
    join: all_done
    brief: Write.
    script: ${script}
    requireChange: false
`;
    const { dir, home } = await project({ 'plan.yaml': plan, 'file.txt': 'original\n' }, { git: true });
    // The project sits in an enclosing repository (a dotfiles home, a monorepo).
    const outer = join(dir, '..');
    await commitAll(outer);
    const { outcome } = await run(dir, home, { isolation: 'inplace' });
    // Removing .git is itself a change of the git metadata: the step that did it fails.
    expect(outcome.state.steps.get('unmake')).toMatchObject({ status: 'failed', error: { code: 'FLOW_ESCAPE' } });
    expect(outcome.state.steps.get('work')).toMatchObject({
      status: 'failed',
      error: { code: 'FLOW_CONTAINMENT_UNAVAILABLE' },
    });
    expect(outcome.state.steps.get('work')!.error!.message).toContain('no longer the top of a git work tree');
  });
});
