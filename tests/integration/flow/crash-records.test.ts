/**
 * A run is recorded from its first byte, temp files of writes killed midway are swept, and a lock
 * whose owner is not that very process any more (gone, a zombie, a recycled pid) is taken over.
 */
import { execa, type ResultPromise } from 'execa';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { CompiledPlan } from '../../../engine/flow/core/plan.js';
import type { RunRecord } from '../../../engine/flow/store/run-files.js';
import { RunStore } from '../../../engine/flow/store/run-store.js';
import { runNeo } from '../../helpers/cli.js';
import { resealRecord } from '../../helpers/sealed-record.js';
import { tempDir, writeTree } from '../../helpers/temp.js';
import { onlyRunId, spawnNeo, waitForOutput } from '../../e2e/flow-helpers.js';

const record = (runId: string): RunRecord => ({
  version: 1,
  runId,
  flow: 'f',
  planFile: '/p/plan.yaml',
  status: 'running',
  createdAt: 't',
  updatedAt: 't',
  inputs: {},
  manifest: { setHash: 'h', planHash: 'p', definitions: [] },
  options: {},
  ledger: { turns: 0, tokens: 0, costUsd: 0, wallMs: 0 },
  steps: {},
  segments: [],
});

const RUN = '20260101-000000-abcdef';

/** A pid no process can have (beyond any pid_max). */
const NO_SUCH_PID = 999_999_999;

const zombies: ResultPromise[] = [];
afterEach(async () => {
  for (const parent of zombies.splice(0)) {
    parent.kill('SIGKILL');
    await parent.catch(() => undefined);
  }
});

/** A pid that belongs to a zombie: exited, never reaped (its parent exec'd a sleep). */
async function zombiePid(): Promise<number> {
  const parent = execa('sh', ['-c', 'sleep 0 & echo $!; exec sleep 60'], { reject: false });
  zombies.push(parent);
  const pid = await new Promise<number>((resolve) =>
    parent.stdout!.once('data', (chunk: Buffer) => resolve(Number(String(chunk).trim()))),
  );
  while (!readFileSync(`/proc/${pid}/stat`, 'utf8').includes(') Z ')) await new Promise((r) => setTimeout(r, 10));
  return pid;
}

describe('a run is recorded from its first byte', () => {
  it('run.json and plan.json are in place when the store is created, with no temp file beside them', async () => {
    const home = await tempDir();
    const store = await RunStore.create(home, record(RUN), { name: 'f', steps: [] } as unknown as CompiledPlan);
    const dir = join(home, 'runs', RUN);
    expect(readdirSync(dir).sort()).toEqual(['plan.json', 'run.json']);
    expect(JSON.parse(readFileSync(join(dir, 'run.json'), 'utf8'))).toMatchObject({ runId: RUN });
    await store.close();
  });

  it('neo flow list sweeps the temp files of writers that died, and keeps those of live writers', async () => {
    const home = await tempDir();
    const dir = join(home, 'runs', RUN);
    await writeTree(dir, {
      'run.json': JSON.stringify({ ...record(RUN), status: 'failed' }),
      [`run.json.${NO_SUCH_PID}.0badc0de.tmp`]: '{"torn',
      [`snapshot.json.${process.pid}.0123abcd.tmp`]: '{}',
    });
    const list = await runNeo(['flow', 'list'], { env: { NEO_HOME: home } });
    expect(list.exitCode).toBe(0);
    expect(readdirSync(dir).sort()).toEqual(['run.json', `snapshot.json.${process.pid}.0123abcd.tmp`]);
  });
});

describe('a lock names its owner by pid and start time', () => {
  const PLAN = `name: wait\nworkspace: { isolation: inplace }\nsteps:\n  - { id: gate, approval: { prompt: go? } }\n  - { id: done, run: 'echo done > done.txt', needs: [gate] }\n`;

  /** A run killed while it waited for an approval. */
  async function killedRun() {
    const root = await tempDir();
    const dir = join(root, 'p');
    const home = join(root, 'home');
    await writeTree(dir, { 'plan.yaml': PLAN });
    const child = spawnNeo(['flow', 'run', 'plan.yaml'], { cwd: dir, home });
    await waitForOutput(child, /waiting for approval/);
    child.kill('SIGKILL');
    await child;
    const runId = await onlyRunId(home);
    return { dir, home, runId, runDir: join(home, 'runs', runId) };
  }

  it('a recycled pid (alive, another start time) holds nothing: resume takes the run over and says so', async () => {
    const { dir, home, runId, runDir } = await killedRun();
    // The dead driver's pid now belongs to an unrelated live process (here: this test's).
    resealRecord(home, runId, (saved) => ({ ...saved, pid: process.pid, pidStart: 1 }));
    writeFileSync(join(runDir, 'lock'), JSON.stringify({ runId, pid: process.pid, start: 1, at: 'then' }));
    const resumed = await runNeo(['flow', 'resume', runId, '--yes'], { cwd: dir, env: { NEO_HOME: home } });
    expect(resumed.stderr).toBe('');
    expect(resumed.exitCode).toBe(0);
    expect(resumed.stdout).toContain(
      `note: run ${runId}: took over the lock of run ${runId} from pid ${process.pid}, started at tick 1, which is no longer running`,
    );
    expect(readFileSync(join(dir, 'done.txt'), 'utf8')).toBe('done\n');
    expect(existsSync(join(runDir, 'lock'))).toBe(false);
  });

  it('a zombie holds nothing: the in-place workspace lock of a zombie is taken over', async () => {
    const { dir, home, runId } = await killedRun();
    const zombie = await zombiePid();
    resealRecord(home, runId, ({ pidStart: _start, ...saved }) => ({ ...saved, pid: zombie }));
    const [lockName] = readdirSync(join(home, 'locks'));
    writeFileSync(join(home, 'locks', lockName!), JSON.stringify({ runId: 'other', pid: zombie, at: 'then' }));
    const resumed = await runNeo(['flow', 'resume', runId, '--yes'], { cwd: dir, env: { NEO_HOME: home } });
    expect(resumed.stderr).toBe('');
    expect(resumed.exitCode).toBe(0);
    expect(resumed.stdout).toContain(`took over the lock of run other from pid ${zombie}, which is no longer running`);
  });

  it('the session daemon start lock of a zombie is taken over: the next session start works at once', async () => {
    const home = await tempDir();
    const cwd = await tempDir();
    writeFileSync(join(home, 'session-daemon.pid'), `${await zombiePid()}\n`);
    await writeTree(cwd, { 'say.yaml': 'turns:\n  - - say: hi\n' });
    const env = { NEO_HOME: home };
    try {
      const started = await runNeo(
        ['session', 'start', '--backend', 'script', '--script', 'say.yaml', '--brief', 'b'],
        { cwd, env, timeout: 30_000 },
      );
      expect(started.stderr).toContain('started on script');
      expect(started.exitCode).toBe(0);
    } finally {
      await runNeo(['session', 'daemon', '--stop'], { env });
    }
  });
});
