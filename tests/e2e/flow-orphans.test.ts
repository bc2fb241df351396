/**
 * kill -9 of `neo flow run` leaves its commands running in their own process groups. The run's
 * process journal lets the next neo find them: `neo flow list` and `neo flow resume` stop them
 * before anything touches the workspace again, so a resumed step never runs beside its orphan.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { isAlive } from '../contract/processes.js';
import { runNeo } from '../helpers/cli.js';
import { tempDir, writeTree } from '../helpers/temp.js';
import { onlyRunId, spawnNeo } from './flow-helpers.js';

/**
 * A command that notes whether its previous instance still runs when it starts (a zombie, which
 * a container's PID 1 may never reap, does not), then waits.
 */
const lingers = (name: string) =>
  `p=$(cat ${name}.pid 2>/dev/null); s=$(sed -n "s/.*) \\(.\\).*/\\1/p" /proc/$p/stat 2>/dev/null); if [ -n "$p" ] && [ -n "$s" ] && [ "$s" != Z ]; then echo ${name} >> beside.txt; fi; echo $$ > ${name}.pid; exec sleep 300`;

const PLAN = `name: orphans
workspace: { isolation: inplace }
defaults: { backend: script, maxPosture: full }
steps:
  - { id: cmd, run: '${lingers('cmd')}', timeout: 3s }
  - { id: agent, brief: go, script: agent.yaml, posture: full, timeout: 3s }
`;
const AGENT = `turns:\n  - - run: { command: '${lingers('agent')}' }\n`;

async function killedRun(): Promise<{ dir: string; home: string; pids: number[] }> {
  const root = await tempDir('neo-orphans-');
  const dir = join(root, 'p');
  const home = join(root, 'home');
  await writeTree(dir, { 'plan.yaml': PLAN, 'agent.yaml': AGENT });
  const child = spawnNeo(['flow', 'run', 'plan.yaml'], { cwd: dir, home });
  const pids: number[] = [];
  for (const name of ['cmd', 'agent']) {
    for (;;) {
      const text = await readFile(join(dir, `${name}.pid`), 'utf8').catch(() => '');
      if (text.trim() !== '' && isAlive(Number(text.trim()))) {
        pids.push(Number(text.trim()));
        break;
      }
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }
  child.kill('SIGKILL');
  await child;
  // kill -9 runs no exit hook: both commands outlive neo.
  expect(pids.map(isAlive)).toEqual([true, true]);
  return { dir, home, pids };
}

describe('kill -9 of neo flow run: its commands do not outlive the next neo that looks', () => {
  it('neo flow list stops them and says so; the dead run shows as interrupted', async () => {
    const { dir, home, pids } = await killedRun();
    const list = await runNeo(['flow', 'list'], { cwd: dir, env: { NEO_HOME: home } });
    expect(list.exitCode).toBe(0);
    expect(pids.map(isAlive)).toEqual([false, false]);
    expect(list.stderr).toMatch(
      /^note: stopped what a dead neo \(neo flow run plan\.yaml, pid \d+, started at tick \d+\) left running: .*\(group \d+\).*\(group \d+\)$/,
    );
    // A driver killed with -9 could not write its end; the list records the run interrupted.
    expect(list.stdout).toMatch(/orphans\s+interrupted/);
  });

  it('neo flow resume stops them before the resumed steps run: never the same command twice at once', async () => {
    const { dir, home, pids } = await killedRun();
    const runId = await onlyRunId(home);
    const resumed = await runNeo(['flow', 'resume', runId], { cwd: dir, env: { NEO_HOME: home } });
    expect(resumed.stdout).toMatch(/stopped what a dead neo \(neo flow run plan\.yaml/);
    expect(pids.map(isAlive)).toEqual([false, false]);
    // Each resumed command checked, at its start, whether its predecessor was still alive.
    expect(await readFile(join(dir, 'beside.txt'), 'utf8').catch(() => '')).toBe('');
    const pidsAfter = await Promise.all(['cmd', 'agent'].map((n) => readFile(join(dir, `${n}.pid`), 'utf8')));
    expect(pidsAfter.map((p) => Number(p.trim()))).not.toEqual(pids);
  });
});
