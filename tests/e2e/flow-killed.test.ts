/**
 * kill -9 of `neo flow run` leaves run.json saying `running`: the driver had no chance to write
 * its end. The first reader that finds the driver gone — `neo flow list`, `neo flow show`,
 * `neo flow logs`, `neo flow resume`, `neo serve` — shows the run interrupted and records it so,
 * once: a `run.interrupted` event after the driver's last one, then run.json.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runNeo } from '../helpers/cli.js';
import { git, readEvents, repoWithExamples, spawnNeo, waitForOutput } from './flow-helpers.js';

/** The quickstart's fix, played by the script backend, with a command that blocks the first time. */
const PLAN = `name: killed
defaults: { backend: script, maxPosture: full }
steps:
  - id: fix
    brief: node --test fails; fix the code.
    script: scripts/fix.yaml
    posture: full
    verify: { run: node --test }
`;
const SCRIPT = `turns:
  - actions:
      - say: Fixing the loop bound and the initial total.
      - edit: { path: src/sum.js, search: "i <= items.length", replace: "i < items.length" }
      - edit: { path: src/sum.js, search: "let total;", replace: "let total = 0;" }
      - run: { command: "if [ ! -e .once ]; then touch .once; exec sleep 300; fi" }
      - say: Both tests pass now.
`;

interface Killed {
  repo: string;
  home: string;
  runId: string;
  /** The events the killed driver wrote. */
  before: number;
}

/** Starts the flow, waits until its agent runs the blocking command, then kills neo with -9. */
async function killedRun(): Promise<Killed> {
  const { repo, home } = await repoWithExamples('quickstart');
  await writeFile(join(repo, 'quickstart/plan.yaml'), PLAN);
  await writeFile(join(repo, 'quickstart/scripts/fix.yaml'), SCRIPT);
  await git(repo, '-c', 'user.name=test', '-c', 'user.email=test@example.com', 'commit', '-qam', 'killed');
  const child = spawnNeo(['flow', 'run', 'quickstart/plan.yaml'], { cwd: repo, home });
  const runId = (await waitForOutput(child, /^run (\S+) · flow killed/m))[1]!;
  const record = join(home, 'runs', runId, 'run.json');
  for (;;) {
    const workspace = await readFile(record, 'utf8')
      .then((text) => (JSON.parse(text) as { workspace?: { path: string } }).workspace?.path)
      .catch(() => undefined);
    if (workspace !== undefined && (await readFile(join(workspace, '.once')).catch(() => undefined)) !== undefined)
      break;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  // Let the coalesced run.json write land: the record then says `running` with the step started.
  await new Promise((resolve) => setTimeout(resolve, 300));
  child.kill('SIGKILL');
  await child;
  expect(await status(home, runId)).toBe('running');
  return { repo, home, runId, before: (await readEvents(home, runId)).length };
}

async function status(home: string, runId: string): Promise<string> {
  return (JSON.parse(await readFile(join(home, 'runs', runId, 'run.json'), 'utf8')) as { status: string }).status;
}

/** Recorded once: one run.interrupted right after the driver's last event, naming the dead driver. */
async function expectRecordedInterrupted({ home, runId, before }: Killed): Promise<void> {
  expect(await status(home, runId)).toBe('interrupted');
  const events = await readEvents(home, runId);
  expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i + 1));
  expect(events.filter((e) => e.type === 'run.interrupted')).toHaveLength(1);
  expect(events[before]).toMatchObject({
    type: 'run.interrupted',
    reason: expect.stringMatching(/^the neo that drove it \(pid \d+, started at tick \d+\) is gone/),
  });
  const record = JSON.parse(await readFile(join(home, 'runs', runId, 'run.json'), 'utf8'));
  expect(record.pid).toBeUndefined();
  expect(record.reason).toMatchObject({ code: 'FLOW_INTERRUPTED' });
}

describe('kill -9 of neo flow run: the first reader records the run interrupted', () => {
  it('neo flow list shows it interrupted and records it so (a second list adds nothing)', async () => {
    const killed = await killedRun();
    const env = { NEO_HOME: killed.home };
    const list = await runNeo(['flow', 'list', '--json'], { cwd: killed.repo, env });
    expect(list.exitCode).toBe(0);
    expect(JSON.parse(list.stdout)).toMatchObject([{ runId: killed.runId, status: 'interrupted' }]);
    await expectRecordedInterrupted(killed);
    const again = await runNeo(['flow', 'list'], { cwd: killed.repo, env });
    expect(again.stdout).toMatch(/killed\s+interrupted/);
    await expectRecordedInterrupted(killed);
  });

  it('four readers at once record it once: one run.interrupted, no gap, one winner of the lock', async () => {
    const killed = await killedRun();
    const env = { NEO_HOME: killed.home };
    const readers = await Promise.all([
      runNeo(['flow', 'list', '--json'], { cwd: killed.repo, env }),
      runNeo(['flow', 'show', killed.runId, '--json'], { cwd: killed.repo, env }),
      runNeo(['flow', 'list', '--json'], { cwd: killed.repo, env }),
      runNeo(['flow', 'show', killed.runId, '--json'], { cwd: killed.repo, env }),
    ]);
    for (const reader of readers) expect(reader.exitCode).toBe(0);
    expect(readers.map((r) => JSON.stringify(JSON.parse(r.stdout)).includes('"status":"interrupted"'))).toEqual([
      true,
      true,
      true,
      true,
    ]);
    await expectRecordedInterrupted(killed);
  });

  it('neo flow show shows it interrupted, with the way to resume it', async () => {
    const killed = await killedRun();
    const show = await runNeo(['flow', 'show', killed.runId], { cwd: killed.repo, env: { NEO_HOME: killed.home } });
    expect(show.exitCode).toBe(0);
    expect(show.stdout).toMatch(new RegExp(`^${killed.runId} · flow killed · interrupted`));
    expect(show.stdout).toContain(`resume: neo flow resume ${killed.runId}`);
    await expectRecordedInterrupted(killed);
    const json = await runNeo(['flow', 'show', killed.runId, '--json'], {
      cwd: killed.repo,
      env: { NEO_HOME: killed.home },
    });
    expect(JSON.parse(json.stdout)).toMatchObject({
      record: { status: 'interrupted' },
      state: { status: 'interrupted' },
    });
  });

  it('neo flow logs ends with the interruption', async () => {
    const killed = await killedRun();
    const logs = await runNeo(['flow', 'logs', killed.runId, '--json'], {
      cwd: killed.repo,
      env: { NEO_HOME: killed.home },
    });
    expect(logs.exitCode).toBe(0);
    const lines = logs.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(lines.at(-1)).toMatchObject({ event: 'flow_run_interrupted', runId: killed.runId });
    await expectRecordedInterrupted(killed);
  });

  it('neo flow resume records the interruption before it resumes, and finishes the run', async () => {
    const killed = await killedRun();
    const resumed = await runNeo(['flow', 'resume', killed.runId], {
      cwd: killed.repo,
      env: { NEO_HOME: killed.home },
    });
    expect(resumed.exitCode).toBe(0);
    const events = await readEvents(killed.home, killed.runId);
    expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i + 1));
    expect(events.slice(killed.before, killed.before + 2).map((e) => e.type)).toEqual([
      'run.interrupted',
      'run.resumed',
    ]);
    expect(events.at(-1)).toMatchObject({ type: 'run.finished', status: 'succeeded' });
    expect(await status(killed.home, killed.runId)).toBe('succeeded');
  });

  it('neo serve lists it interrupted and records it so', async () => {
    const killed = await killedRun();
    const serve = spawnNeo(['serve', '--port', '0'], { cwd: killed.repo, home: killed.home });
    try {
      const url = new URL((await waitForOutput(serve, /http:\/\/127\.0\.0\.1:\d+\/\S*/))[0]);
      const token = url.searchParams.get('token') ?? url.hash.replace(/^#?token=/, '');
      const get = async (path: string) =>
        (await (await fetch(new URL(path, url.origin), { headers: { authorization: `Bearer ${token}` } })).json()) as {
          data: any;
        };
      const { data } = await get('/api/flows/runs');
      expect(data.runs).toMatchObject([{ runId: killed.runId, status: 'interrupted' }]);
      expect(data.live).toEqual([]);
      const detail = await get(`/api/flows/runs/${killed.runId}`);
      expect(detail.data).toMatchObject({ record: { status: 'interrupted' }, state: { status: 'interrupted' } });
      await expectRecordedInterrupted(killed);
    } finally {
      serve.kill('SIGTERM');
      await serve;
    }
  });
});
