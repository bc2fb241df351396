/**
 * The dbos engine's workspaces across machines, through the neo binary: a run enqueued with
 * `--remote <bare repo>` pushes its base there; workers with their own NEO_HOME and cwd, which
 * cannot use the enqueuer's folder (it is moved away after `--detach`), fetch the run, push each
 * finished step's result, and a worker killed -9 mid-step is replaced by one that starts from the
 * last recorded result — never the dead worker's half-edited tree. A confined step cannot write
 * the remote; a remote that does not answer is one clear error and nothing enqueued.
 */
import { execa, type ResultPromise } from 'execa';
import { mkdir, mkdtemp, rename, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { NEO_BIN, runNeo } from '../helpers/cli.js';
import { commitAll } from '../helpers/git.js';
import { watchFolder } from '../helpers/leaks.js';
import { tempDir } from '../helpers/temp.js';
import {
  freshDatabase,
  query,
  recordedEvents,
  runRow,
  startDb,
  stopDb,
  stopWorker,
  waitFor,
  type TestDb,
  type Worker,
} from './dbos-helpers.js';
import { git, waitForOutput } from './flow-helpers.js';

let db: TestDb | undefined;
const workers: Worker[] = [];
const outside: string[] = [];

beforeAll(async () => {
  db = await startDb();
}, 120_000);
afterAll(() => stopDb(db), 60_000);
afterEach(async () => {
  await Promise.all(workers.splice(0).map(stopWorker));
  await Promise.all(outside.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});

/** A worker in a folder of its own (its cwd and NEO_HOME), as on another machine. */
async function startWorker(url: string, root: string, id: string): Promise<Worker> {
  const home = join(root, 'home');
  await mkdir(root, { recursive: true });
  watchFolder(home);
  const child = execa(process.execPath, [NEO_BIN, 'worker', '--database-url', url, '--executor-id', id], {
    cwd: root,
    env: { NO_COLOR: '1', NEO_HOME: home },
    reject: false,
    stdin: 'ignore',
  }) as ResultPromise;
  await waitForOutput(child, /worker \S+ ready/, 'stderr');
  const worker = { id, home, child };
  workers.push(worker);
  return worker;
}

/** A committed project holding `plan.yaml`, and a bare remote (in /var/tmp: outside every sandbox's /tmp). */
async function setUp(plan: (remote: string) => string): Promise<{ dir: string; client: string; remote: string }> {
  const root = await tempDir('neo-remote-');
  const remote = await mkdtemp('/var/tmp/neo-remote-bare-');
  outside.push(remote);
  await git(remote, 'init', '--quiet', '--bare');
  const dir = join(root, 'project');
  await mkdir(dir);
  await writeFile(join(dir, 'plan.yaml'), plan(remote));
  await writeFile(join(dir, 'README.md'), 'the project\n');
  await commitAll(dir);
  return { dir, client: join(root, 'client-home'), remote };
}

async function enqueue(url: string, dir: string, client: string, remote: string): Promise<string> {
  const r = await runNeo(
    ['flow', 'run', 'plan.yaml', '--engine', 'dbos', '--database-url', url, '--remote', remote, '--detach', '--json'],
    { cwd: dir, env: { NEO_HOME: client } },
  );
  // (A fresh database: the client's DBOS migration says so on stderr.)
  expect(r.stderr).not.toMatch(/error|warning/i);
  expect(r.exitCode).toBe(0);
  const line = JSON.parse(r.stdout.split('\n')[0]!) as { runId: string; base: { ref: string; commit: string } };
  expect(line.base.ref).toBe(`refs/neo/runs/${line.runId}/base`);
  expect(line.base.commit).toBe(await git(dir, 'rev-parse', 'HEAD'));
  return line.runId;
}

const finished = (url: string, runId: string) =>
  waitFor(
    'the run to finish',
    async () => {
      const row = await runRow(url, runId);
      return row !== undefined && ['succeeded', 'failed', 'cancelled'].includes(row.status) ? row : undefined;
    },
    120_000,
  );

const exists = (path: string) =>
  stat(path).then(
    () => true,
    () => undefined,
  );

/** The remote's refs of a run (ref → commit). */
async function refsOf(remote: string, runId: string): Promise<Record<string, string>> {
  const out = await git(remote, 'for-each-ref', '--format=%(refname) %(objectname)', `refs/neo/runs/${runId}`);
  return Object.fromEntries(
    out
      .split('\n')
      .filter(Boolean)
      .map((l) => l.split(' ') as [string, string]),
  );
}

describe('dbos engine: workspaces through a git remote', () => {
  it('workers without the enqueuer’s folder run it; a worker killed -9 mid-step is replaced from the last recorded result', async () => {
    const url = await freshDatabase(db!);
    const { dir, client, remote } = await setUp(
      () => `name: three
steps:
  - id: one
    run: echo one > one.txt
  - id: two
    needs: [one]
    run: test ! -e half-two || echo seen > saw-half-edit; touch half-two; sleep 4; echo two > two.txt; rm half-two
  - id: three
    needs: [two]
    run: echo three > three.txt
`,
    );
    const runId = await enqueue(url, dir, client, remote);
    // Nothing of the enqueuer's folder is there for the workers.
    await rename(dir, `${dir}-moved`);
    const root = await tempDir('neo-remote-workers-');
    await startWorker(url, join(root, 'a'), 'wa');
    await startWorker(url, join(root, 'b'), 'wb');
    const victim = await waitFor('step two to be half done', async () => {
      for (const w of workers) if (await exists(join(w.home, 'worktrees', runId, 'half-two'))) return w;
      return undefined;
    });
    const survivor = workers.find((w) => w !== victim)!;
    victim.child.kill('SIGKILL');
    await victim.child;
    workers.splice(workers.indexOf(victim), 1);
    expect((await runNeo(['flow', 'list'], { env: { NEO_HOME: victim.home } })).exitCode).toBe(0);

    expect(await finished(url, runId)).toEqual({ status: 'succeeded', executor: survivor.id });
    const steps = await query<{ key: string; executor: string; commit: string }>(
      url,
      `SELECT key, executor, commit FROM neo.step_results WHERE run_id = $1 ORDER BY at`,
      [runId],
    );
    expect(steps.map((s) => `${s.key} ${s.executor}`)).toEqual([
      `one#1.1 ${victim.id}`,
      `two#1.1 ${survivor.id}`,
      `three#1.1 ${survivor.id}`,
    ]);
    const events = await recordedEvents(url, runId);
    expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i + 1));
    expect(events.filter((e) => e.type === 'step.started').map((e) => e.step)).toEqual(['one', 'two', 'two', 'three']);

    // The remote: the base, each step's recorded commit, head at the last; no pending ref left.
    const refs = await refsOf(remote, runId);
    const base = await git(`${dir}-moved`, 'rev-parse', 'HEAD');
    const at = (name: string) => `refs/neo/runs/${runId}/${name}`;
    expect(refs).toEqual({
      [at('base')]: base,
      [at('head')]: steps[2]!.commit,
      [at('steps/one#1.1')]: steps[0]!.commit,
      [at('steps/two#1.1')]: steps[1]!.commit,
      [at('steps/three#1.1')]: steps[2]!.commit,
    });
    const files = (await git(remote, 'ls-tree', '-r', '--name-only', at('head'))).split('\n');
    expect(files.sort()).toEqual(['README.md', 'one.txt', 'plan.yaml', 'three.txt', 'two.txt']);
    expect(await git(remote, 'log', '--format=%H', at('head'))).toBe(
      [steps[2]!.commit, steps[1]!.commit, steps[0]!.commit, base].join('\n'),
    );
    // Step one's result is what step two was re-run from: the killed attempt's marker is nowhere.
    expect((await git(remote, 'ls-tree', '-r', '--name-only', at('steps/one#1.1'))).split('\n').sort()).toEqual([
      'README.md',
      'one.txt',
      'plan.yaml',
    ]);

    const show = await runNeo(['flow', 'show', runId, '--engine', 'dbos', '--database-url', url, '--json'], {
      env: { NEO_HOME: client },
    });
    expect(show.exitCode).toBe(0);
    const shown = JSON.parse(show.stdout) as { remote: { url: string; base: string; result: unknown } };
    expect(shown.remote).toEqual({
      url: remote,
      base,
      result: { remote, ref: at('head'), commit: steps[2]!.commit },
    });
    const text = await runNeo(['flow', 'show', runId, '--engine', 'dbos', '--database-url', url], {
      env: { NEO_HOME: client },
    });
    expect(text.stdout).toContain(`result: ${at('head')} = ${steps[2]!.commit} on ${remote}`);
  }, 240_000);

  it('a confined step cannot write the bare remote, and its environment names neither the remote nor the database', async () => {
    const url = await freshDatabase(db!);
    const { dir, client, remote } = await setUp(
      (r) => `name: confined
sandbox: bwrap
steps:
  - id: probe
    run: |
      if touch "${r}/evil" 2>/dev/null || mkdir "${r}/refs/neo/evil" 2>/dev/null; then exit 1; fi
      env > env.txt
      echo blocked > blocked.txt
`,
    );
    const runId = await enqueue(url, dir, client, remote);
    const root = await tempDir('neo-remote-workers-');
    await startWorker(url, join(root, 'a'), 'wa');
    expect((await finished(url, runId)).status).toBe('succeeded');
    expect(await exists(join(remote, 'evil'))).toBeUndefined();
    expect(await exists(join(remote, 'refs', 'neo', 'evil'))).toBeUndefined();
    const head = `refs/neo/runs/${runId}/head`;
    expect(await git(remote, 'show', `${head}:blocked.txt`)).toBe('blocked');
    const env = await git(remote, 'show', `${head}:env.txt`);
    expect(env).not.toContain(remote);
    expect(env).not.toContain('postgresql://');

    // The worker's clone and worktree of the run go with it when the worker's home is cleaned.
    const home = workers[0]!.home;
    expect(await exists(join(home, 'remote-runs', runId))).toBe(true);
    const clean = await runNeo(['flow', 'clean', runId, '--force'], { env: { NEO_HOME: home } });
    expect(clean.exitCode).toBe(0);
    expect(await exists(join(home, 'remote-runs', runId))).toBeUndefined();
    expect(await exists(join(home, 'worktrees', runId))).toBeUndefined();
  }, 120_000);

  it('a remote that is no git repository: one clear error at enqueue, nothing enqueued; gone before the worker fetches: the run fails with why', async () => {
    const url = await freshDatabase(db!);
    const { dir, client, remote } = await setUp(() => 'name: one\nsteps:\n  - { id: a, run: "true" }\n');
    // neo's tables made first, so "nothing enqueued" is a row count.
    expect(
      (await runNeo(['flow', 'list', '--engine', 'dbos', '--database-url', url], { env: { NEO_HOME: client } }))
        .exitCode,
    ).toBe(0);
    const notGit = await tempDir('neo-remote-empty-');
    const refused = await runNeo(
      ['flow', 'run', 'plan.yaml', '--engine', 'dbos', '--database-url', url, '--remote', notGit, '--detach'],
      { cwd: dir, env: { NEO_HOME: client } },
    );
    expect(refused.exitCode).toBe(9);
    expect(refused.stderr).toContain('ENGINE_REMOTE_UNREACHABLE');
    expect(refused.stderr).toContain(notGit);
    const secret = await runNeo(
      [
        'flow',
        'run',
        'plan.yaml',
        '--engine',
        'dbos',
        '--database-url',
        url,
        '--remote',
        'https://me:hunter2@example.invalid/r.git',
        '--detach',
      ],
      { cwd: dir, env: { NEO_HOME: client } },
    );
    expect(secret.exitCode).toBe(2);
    expect(secret.stderr).toContain('ENGINE_REMOTE_BAD_URL');
    expect(secret.stderr).not.toContain('hunter2');
    // A sub-flow's work would reach the remote only with its parent's next step: refused.
    await writeFile(join(dir, 'sub.flow.yaml'), 'name: sub\nsteps:\n  - { id: s, run: "true" }\n');
    await writeFile(join(dir, 'nested.yaml'), 'name: nested\nsteps:\n  - { id: inner, flow: sub.flow.yaml }\n');
    const nested = await runNeo(
      ['flow', 'run', 'nested.yaml', '--engine', 'dbos', '--database-url', url, '--remote', remote, '--detach'],
      { cwd: dir, env: { NEO_HOME: client } },
    );
    expect(nested.exitCode).toBe(2);
    expect(nested.stderr).toContain('ENGINE_REMOTE_SUBFLOW');
    expect(nested.stderr).toContain('step `inner` runs a sub-flow');
    expect(await query(url, `SELECT run_id FROM neo.runs`)).toEqual([]);

    const runId = await enqueue(url, dir, client, remote);
    await rm(remote, { recursive: true, force: true });
    const root = await tempDir('neo-remote-workers-');
    await startWorker(url, join(root, 'a'), 'wa');
    expect((await finished(url, runId)).status).toBe('failed');
    const [row] = await query<{ reason: { code: string; message: string } }>(
      url,
      `SELECT reason FROM neo.runs WHERE run_id = $1`,
      [runId],
    );
    expect(row!.reason.code).toBe('ENGINE_REMOTE_UNREACHABLE');
    expect(row!.reason.message).toContain(remote);
  }, 120_000);
});
