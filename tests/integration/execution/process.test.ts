import { execa } from 'execa';
import { existsSync, readFileSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import {
  groupAlive,
  identify,
  isSameProcess,
  liveGroups,
  selfIdentity,
  spawnProcess,
  sweepOrphanedProcesses,
} from '../../../engine/execution/index.js';
import { isAlive } from '../../contract/processes.js';
import { tempDir } from '../../helpers/temp.js';

const OWNER = fileURLToPath(new URL('../../fixtures/execution/owner.mjs', import.meta.url));

async function waitFor(check: () => boolean, ms = 5_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('timed out waiting');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

const sh = (script: string, options: Partial<Parameters<typeof spawnProcess>[1]> = {}) =>
  spawnProcess(['/bin/sh', '-c', script], { cwd: process.cwd(), env: process.env, graceMs: 500, ...options });

describe('spawnProcess: one result shape with flags', () => {
  it('a clean exit keeps tails of stdout, stderr and both in arrival order', async () => {
    const result = await sh('echo out; echo err >&2; echo again').result;
    expect(result).toMatchObject({
      exitCode: 0,
      signal: undefined,
      failed: false,
      timedOut: false,
      idleTimedOut: false,
      isCanceled: false,
      isTerminated: false,
      spawnError: undefined,
      stdout: 'out\nagain\n',
      stderr: 'err\n',
    });
    expect(result.all.split('\n').sort()).toEqual(['', 'again', 'err', 'out']);
  });

  it('a non-zero exit is failed with its code and no other flag', async () => {
    const result = await sh('exit 3').result;
    expect(result).toMatchObject({
      exitCode: 3,
      failed: true,
      timedOut: false,
      isCanceled: false,
      isTerminated: false,
    });
  });

  it('a program that cannot start is a spawnError, not a throw', async () => {
    const child = spawnProcess(['/no/such/program'], { cwd: process.cwd(), env: process.env });
    expect(child.pid).toBeUndefined();
    const result = await child.result;
    expect(result.failed).toBe(true);
    expect(result.exitCode).toBeUndefined();
    expect(result.spawnError).toMatch(/ENOENT/);
  });

  it('a timeout kills the whole group, children included', async () => {
    const child = sh('sleep 30 & echo $!; wait', { timeoutMs: 300 });
    const result = await child.result;
    const grandchild = Number(result.stdout.trim());
    expect(result).toMatchObject({ timedOut: true, failed: true, isTerminated: true, signal: 'SIGTERM' });
    expect(isAlive(grandchild)).toBe(false);
    expect(groupAlive(child.pid!)).toBe(false);
  });

  it('silence past the idle timeout kills it: idleTimedOut', async () => {
    const result = await sh('echo start; sleep 30', { idleTimeoutMs: 300 }).result;
    expect(result).toMatchObject({ idleTimedOut: true, timedOut: false, failed: true, stdout: 'start\n' });
  });

  it('an aborted signal kills it: isCanceled', async () => {
    const controller = new AbortController();
    const child = sh('sleep 30', { signal: controller.signal });
    setTimeout(() => controller.abort(), 100);
    expect(await child.result).toMatchObject({ isCanceled: true, failed: true, timedOut: false });
  });

  it('kill() reaches a process that left the group (setsid) by the tag it inherited', async () => {
    const child = sh('setsid sleep 31 & echo $!; wait', { output: 'stream' });
    const escaped = await new Promise<number>((resolve) =>
      child.stdout!.once('data', (chunk: Buffer) => resolve(Number(String(chunk).trim()))),
    );
    // Wait until it has left: its group is its own.
    await waitFor(
      () => isAlive(escaped) && readFileSync(`/proc/${escaped}/stat`, 'utf8').split(' ')[4] === String(escaped),
    );
    child.stdout!.resume();
    await child.kill(300);
    expect(isAlive(escaped)).toBe(false);
  });

  it('killLeftovers: what the leader left in its group dies with it; the result keeps the leader exit', async () => {
    const child = sh('sleep 32 > /dev/null 2>&1 & echo $!', { killLeftovers: true });
    const result = await child.result;
    expect(result).toMatchObject({ exitCode: 0, failed: false });
    await waitFor(() => !isAlive(Number(result.stdout.trim())));
  });

  it('the live registry holds a group while it runs and forgets it once nothing of it is left', async () => {
    const child = sh('sleep 0.2');
    expect(liveGroups().map((g) => g.pgid)).toContain(child.pid);
    await child.result;
    expect(liveGroups().map((g) => g.pgid)).not.toContain(child.pid);
  });
});

describe('process identity: pid and start time', () => {
  it('this process is itself; a wrong start time, a dead pid and a zombie are not', async () => {
    const self = selfIdentity();
    expect(self.start).toBeGreaterThan(0);
    expect(isSameProcess(self)).toBe(true);
    expect(isSameProcess({ pid: self.pid, start: self.start! + 1 })).toBe(false);
    const done = await execa('sh', ['-c', 'echo $$']);
    expect(isSameProcess({ pid: Number(done.stdout) })).toBe(false);
    // `sleep 0` exits and stays a zombie: the shell exec'd into a sleep that never reaps it.
    const parent = execa('sh', ['-c', 'sleep 0 & echo $!; exec sleep 3'], { reject: false });
    const zombie = await new Promise<number>((resolve) =>
      parent.stdout!.once('data', (chunk: Buffer) => resolve(Number(String(chunk).trim()))),
    );
    await waitFor(() => readFileSync(`/proc/${zombie}/stat`, 'utf8').includes(') Z '));
    expect(identify(zombie)).toBeUndefined();
    expect(isSameProcess({ pid: zombie })).toBe(false);
    parent.kill('SIGKILL');
    await parent;
  });
});

describe('sweepOrphanedProcesses: what a dead neo left running', () => {
  it('kills the groups a SIGKILLed owner journaled and the processes that left them, then drops its journal', async () => {
    const home = await tempDir('neo-sweep-');
    const owner = execa(process.execPath, [OWNER, home], { reject: false });
    const ready = await new Promise<string>((resolve) =>
      owner.stdout!.on('data', (chunk: Buffer) => {
        if (String(chunk).startsWith('ready')) resolve(String(chunk).trim());
      }),
    );
    const [, group, escaped] = ready.split(' ').map(Number);
    const journals = await readdir(join(home, 'processes'));
    expect(journals).toEqual([`${owner.pid}-${identify(owner.pid!)!.start}.jsonl`]);

    // A live owner is nobody's orphan.
    expect(await sweepOrphanedProcesses(home)).toEqual([]);
    expect(groupAlive(group!)).toBe(true);

    owner.kill('SIGKILL');
    await owner;
    expect(groupAlive(group!)).toBe(true);
    expect(isAlive(escaped!)).toBe(true);

    const swept = await sweepOrphanedProcesses(home, 300);
    expect(swept).toHaveLength(1);
    expect(swept[0]!.owner.pid).toBe(owner.pid);
    expect(swept[0]!.groups.map((g) => g.pgid).sort()).toContain(group);
    expect(groupAlive(group!)).toBe(false);
    expect(isAlive(escaped!)).toBe(false);
    expect(existsSync(join(home, 'processes', journals[0]!))).toBe(false);
  });
});
