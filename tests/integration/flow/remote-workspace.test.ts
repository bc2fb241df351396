/**
 * A run's workspace through a git remote, without a database: the base pushed once, each
 * step's result pushed before it is recorded and named by the record, a re-run of a recorded
 * step unable to move its ref, and a takeover starting from the last recorded result.
 */
import { execa } from 'execa';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { prepareRemote, publishBase } from '../../../engine/flow/engines/dbos/remote-base.js';
import { RemoteRun } from '../../../engine/flow/engines/dbos/remote-workspace.js';
import { NeoError } from '../../../engine/util/errors.js';
import { commitAll } from '../../helpers/git.js';
import { tempDir } from '../../helpers/temp.js';

const git = async (cwd: string, ...args: string[]) => (await execa('git', args, { cwd })).stdout;
const RUN = '20261206-120000-0a1b2c';

async function refs(remote: string): Promise<Record<string, string>> {
  const out = await git(remote, 'for-each-ref', '--format=%(refname) %(objectname)', 'refs/neo');
  return Object.fromEntries(
    out
      .split('\n')
      .filter(Boolean)
      .map((l) => l.split(' ') as [string, string]),
  );
}

async function setUp() {
  const root = await tempDir('neo-remote-ws-');
  const remote = join(root, 'remote.git');
  await mkdir(remote);
  await git(remote, 'init', '--quiet', '--bare');
  const project = join(root, 'project');
  await mkdir(project);
  await writeFile(join(project, 'plan.yaml'), 'name: p\nsteps:\n  - { id: one, run: "true" }\n');
  await commitAll(project);
  const prepare = () =>
    prepareRemote({ remote, cwd: project, planFile: join(project, 'plan.yaml'), projectDir: project });
  return { root, remote, project, prepare, home: join(root, 'home') };
}

/** The worktree the runtime would make for the run, from the worker's clone at `start`. */
async function worktree(home: string, start: string) {
  const clone = join(home, 'remote-runs', RUN);
  const root = join(home, 'worktrees', RUN);
  await git(clone, 'worktree', 'add', '--quiet', '--detach', root, start);
  return {
    isolation: 'worktree' as const,
    root,
    path: root,
    projectDir: root,
    gitDir: join(clone, '.git', 'worktrees', RUN),
    commonDir: join(clone, '.git'),
  };
}

describe('a run through a git remote', () => {
  it('pushes its base once; a run id whose base ref names another commit is refused', async () => {
    const { remote, project, prepare } = await setUp();
    const prepared = await prepare();
    expect(prepared.spec).toMatchObject({
      url: remote,
      plan: 'plan.yaml',
      cwd: '.',
      base: await git(project, 'rev-parse', 'HEAD'),
    });
    await publishBase(prepared, RUN);
    await publishBase(prepared, RUN);
    await writeFile(join(project, 'more.txt'), 'more\n');
    await git(project, 'add', 'more.txt');
    await git(project, '-c', 'user.name=t', '-c', 'user.email=t@e', 'commit', '-qm', 'more');
    const later = await prepare();
    const refused = await publishBase(later, RUN).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(NeoError);
    expect((refused as NeoError).code).toBe('ENGINE_REMOTE_REF_TAKEN');
    expect(await refs(remote)).toEqual({ [`refs/neo/runs/${RUN}/base`]: prepared.spec.base });
  });

  it('names each step result by the record: the first recorded stays, a takeover starts from the last', async () => {
    const { remote, prepare, home } = await setUp();
    const prepared = await prepare();
    await publishBase(prepared, RUN);
    const run = await RemoteRun.open({ home, runId: RUN, spec: prepared.spec, recorded: [] });
    expect(run.start).toBe(prepared.spec.base);
    const ws = await worktree(home, run.start);
    run.attach(ws);
    await writeFile(join(ws.root, 'one.txt'), 'one\n');
    let first = '';
    await run.settle('one#1.1', async (commit) => {
      first = commit;
      // Pushed before it is recorded: the record never names a commit the remote lacks.
      expect(await git(remote, 'cat-file', '-t', commit)).toBe('commit');
      return { commit };
    });
    // A second execution of the recorded step (a frozen worker woken up): its tree differs, the record's stays.
    await writeFile(join(ws.root, 'stray.txt'), 'stray\n');
    await run.settle('one#1.1', async () => ({ commit: first }));
    const result = await run.finish();
    const at = (name: string) => `refs/neo/runs/${RUN}/${name}`;
    expect(await refs(remote)).toEqual({
      [at('base')]: prepared.spec.base,
      [at('head')]: first,
      [at('steps/one#1.1')]: first,
    });
    expect(result).toEqual({ remote, ref: at('head'), commit: first });
    expect((await git(remote, 'ls-tree', '--name-only', first)).split('\n')).toEqual(['one.txt', 'plan.yaml']);

    // Another worker (another home) takes over from the record — here, one whose writer died after
    // recording but before naming it: the commit only under a pending ref, the step ref and head missing.
    await git(remote, 'update-ref', at(`pending/${first}`), first);
    await git(remote, 'update-ref', '-d', at('steps/one#1.1'));
    await git(remote, 'update-ref', at('head'), prepared.spec.base);
    const other = join(home, '..', 'other-home');
    const taken = await RemoteRun.open({
      home: other,
      runId: RUN,
      spec: prepared.spec,
      recorded: [{ key: 'one#1.1', commit: first }],
    });
    expect(taken.start).toBe(first);
    expect(await refs(remote)).toEqual({
      [at('base')]: prepared.spec.base,
      [at('head')]: first,
      [at('pending/' + first)]: first,
      [at('steps/one#1.1')]: first,
    });
    await taken.finish();
    expect(Object.keys(await refs(remote)).sort()).toEqual([at('base'), at('head'), at('steps/one#1.1')]);
    expect(await git(join(other, 'remote-runs', RUN), 'rev-parse', 'HEAD')).toBe(prepared.spec.base);
  });

  it('a remote that is gone is ENGINE_REMOTE_UNREACHABLE', async () => {
    const { root, project } = await setUp();
    const error = await prepareRemote({
      remote: join(root, 'nowhere.git'),
      cwd: project,
      planFile: join(project, 'plan.yaml'),
      projectDir: project,
    }).catch((e: unknown) => e);
    expect((error as NeoError).code).toBe('ENGINE_REMOTE_UNREACHABLE');
    expect((error as NeoError).message).toContain(join(root, 'nowhere.git'));
  });
});
