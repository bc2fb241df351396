import { execa } from 'execa';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { approveRun } from '../../../engine/flow/index.js';
import { project, run } from './helpers.js';
import { reopenWorkspace } from '../../../engine/flow/workspace/index.js';
import { tempDir } from '../../helpers/temp.js';

const EDIT = `
name: edit
steps:
  - { id: change, run: 'echo changed > file.txt' }
`;

describe('workspaces', () => {
  it('worktree (the default in git): its own branch neo/<runId>, committed on success, the checkout untouched', async () => {
    const { dir, home } = await project({ 'plan.yaml': EDIT, 'file.txt': 'original\n' }, { git: true });
    const { outcome } = await run(dir, home, { isolation: undefined });
    expect(outcome.status).toBe('succeeded');
    const ws = outcome.record.workspace!;
    expect(ws).toMatchObject({
      isolation: 'worktree',
      branch: `neo/${outcome.runId}`,
      root: join(home, 'worktrees', outcome.runId),
    });
    expect(await readFile(join(dir, 'file.txt'), 'utf8')).toBe('original\n');
    expect((await execa('git', ['status', '--porcelain'], { cwd: dir })).stdout).toBe('');
    expect((await execa('git', ['show', `neo/${outcome.runId}:file.txt`], { cwd: dir })).stdout).toBe('changed');
    expect(outcome.summary!.lines).toContain(`merge it: git -C ${ws.repo} merge neo/${outcome.runId}`);
  });

  it('never shares a worktree between two runs', async () => {
    const { dir, home } = await project({ 'plan.yaml': EDIT, 'file.txt': 'original\n' }, { git: true });
    const [a, b] = await Promise.all([
      run(dir, home, { isolation: 'worktree' }),
      run(dir, home, { isolation: 'worktree' }),
    ]);
    expect(a.outcome.record.workspace!.root).not.toBe(b.outcome.record.workspace!.root);
    expect(a.outcome.status).toBe('succeeded');
    expect(b.outcome.status).toBe('succeeded');
  });

  it('refuses a worktree for a project folder that is not committed', async () => {
    const { dir, home } = await project({ 'file.txt': 'x\n' }, { git: true });
    const { writeTree } = await import('../../helpers/temp.js');
    await writeTree(dir, { 'sub/plan.yaml': EDIT });
    await expect(run(join(dir, 'sub'), home, { isolation: 'worktree' })).rejects.toMatchObject({
      code: 'FLOW_WORKSPACE_UNCOMMITTED',
    });
  });

  it('inplace locks the checkout: a second run in it is refused while the first holds it', async () => {
    const plan = `
name: hold
steps:
  - { id: wait, approval: { prompt: go? } }
  - { id: change, run: 'echo changed > file.txt', needs: [wait] }
`;
    const { dir, home } = await project({ 'plan.yaml': plan, 'file.txt': 'original\n' }, { git: true });
    let second: Promise<unknown> | undefined;
    const first = await run(dir, home, {
      isolation: 'inplace',
      observer: (o) => {
        if (o.type === 'progress' && o.progress.note?.startsWith('waiting for approval') && second === undefined) {
          second = run(dir, home, { isolation: 'inplace', yes: true }).catch((error: unknown) => error);
          void second.then(() => approveRun({ home, runId: o.runId, step: 'wait', decision: 'approve' }));
        }
      },
    });
    expect(await second).toMatchObject({
      code: 'FLOW_WORKSPACE_LOCKED',
      message: expect.stringContaining(`in use by run ${first.outcome.runId}`),
    });
    expect(first.outcome.status).toBe('succeeded');
    expect(await readFile(join(dir, 'file.txt'), 'utf8')).toBe('changed\n');
    const again = await run(dir, home, { isolation: 'inplace', yes: true });
    expect(again.outcome.status).toBe('succeeded');
  });

  it('copies a folder without git, leaving the original alone', async () => {
    const { dir, home } = await project({ 'plan.yaml': EDIT, 'file.txt': 'original\n' });
    const { outcome } = await run(dir, home, { isolation: undefined });
    expect(outcome.record.workspace).toMatchObject({
      isolation: 'copy',
      path: join(home, 'workspaces', outcome.runId),
    });
    expect(await readFile(join(dir, 'file.txt'), 'utf8')).toBe('original\n');
    expect(await readFile(join(outcome.record.workspace!.path, 'file.txt'), 'utf8')).toBe('changed\n');
  });
});

describe('a resumed run whose own workspace is gone', () => {
  it('is refused with FLOW_WORKSPACE_MISSING naming its copy or worktree, never recreated', async () => {
    const gone = join(await tempDir(), 'gone');
    for (const isolation of ['copy', 'worktree'] as const) {
      const record = { isolation, path: gone, root: gone, projectDir: gone };
      await expect(reopenWorkspace(record, gone, 'r1')).rejects.toMatchObject({
        code: 'FLOW_WORKSPACE_MISSING',
        message: `the run's ${isolation} ${gone} is gone`,
      });
    }
  });
});
