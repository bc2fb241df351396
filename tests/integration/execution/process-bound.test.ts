/**
 * The process bound through spawnProcess with real processes: a flood stops at its cap and says
 * so, nothing it started outlives the result (a setsid daemon with a cleared environment
 * included), and the bound's cgroup is gone afterwards.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { probeProcessBound, spawnProcess } from '../../../engine/execution/index.js';

const bound = probeProcessBound();
const cgroupDir = /^cgroup pids \((.*)\)$/.exec(bound.detail)?.[1];

/** Live processes whose command line holds `marker` as one argument. */
function marked(marker: string): number[] {
  const found: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const state = /\) (\S)/.exec(readFileSync(`/proc/${name}/stat`, 'utf8'))?.[1];
      if (state !== 'Z' && readFileSync(`/proc/${name}/cmdline`, 'utf8').split('\0').includes(marker))
        found.push(Number(name));
    } catch {
      // gone meanwhile
    }
  }
  return found;
}

/** This process's bound cgroups still on the host. */
function ownCgroups(): string[] {
  if (cgroupDir === undefined) return [];
  return readdirSync(cgroupDir).filter((name) => new RegExp(`^neo-\\d+-${process.pid}-`).test(name));
}

describe.runIf(bound.kind === 'cgroup')('a pids cgroup per process', () => {
  it('a flood is stopped at its cap at once: processLimited, failed, nothing left, the cgroup removed', async () => {
    const marker = '91.5';
    const result = await spawnProcess(['/bin/sh', '-c', `while :; do sleep ${marker} & done`], {
      cwd: '/',
      env: process.env,
      maxProcesses: 32,
      timeoutMs: 60_000,
    }).result;
    expect(result).toMatchObject({ processLimited: true, failed: true, timedOut: false });
    expect(result.durationMs).toBeLessThan(60_000);
    expect(marked(marker)).toEqual([]);
    expect(ownCgroups()).toEqual([]);
  });

  it('under the cap nothing is reported; what the command left (setsid, env -i) dies with it', async () => {
    const marker = '92.5';
    const result = await spawnProcess(
      ['/bin/sh', '-c', `env -i setsid sleep ${marker} </dev/null >/dev/null 2>&1 & echo started`],
      { cwd: '/', env: process.env, maxProcesses: 32 },
    ).result;
    expect(result).toMatchObject({ exitCode: 0, failed: false, processLimited: false, stdout: 'started\n' });
    expect(marked(marker)).toEqual([]);
    expect(ownCgroups()).toEqual([]);
  });

  it('kill() of a running command ends what left its group and its tag (setsid, env -i): its cgroup lists them', async () => {
    const marker = '93.5';
    const child = spawnProcess(
      ['/bin/sh', '-c', `env -i setsid sleep ${marker} </dev/null >/dev/null 2>&1 & echo started; sleep 30`],
      { cwd: '/', env: process.env, maxProcesses: 32, output: 'stream' },
    );
    await new Promise((resolve) => child.stdout!.once('data', resolve));
    child.stdout!.resume();
    // Wait until the escapee runs (`sleep` exec'd, no longer the forked shell).
    for (let i = 0; i < 200 && marked(marker).length === 0; i++) await new Promise((r) => setTimeout(r, 10));
    expect(marked(marker)).toHaveLength(1);
    await child.kill(300);
    expect(await child.result).toMatchObject({ signal: 'SIGTERM', failed: true });
    expect(marked(marker)).toEqual([]);
    expect(ownCgroups()).toEqual([]);
  });

  it('kill() at once after the spawn (its shell in the cgroup or not yet) ends it and leaves no cgroup', async () => {
    const marker = '94.5';
    const child = spawnProcess(['/bin/sh', '-c', `sleep ${marker}`], { cwd: '/', env: process.env, maxProcesses: 32 });
    await child.kill(300);
    expect((await child.result).failed).toBe(true);
    expect(marked(marker)).toEqual([]);
    expect(ownCgroups()).toEqual([]);
  });
});

describe('whatever the machine allows', () => {
  it('says which bound applies, and why', () => {
    expect(['cgroup', 'prlimit', 'none']).toContain(bound.kind);
    expect(bound.detail.length).toBeGreaterThan(10);
  });
});
