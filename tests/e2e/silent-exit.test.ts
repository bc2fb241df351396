/**
 * A run never ends green by accident: an agent that goes silent keeps neo alive until its stall
 * is reported (never an exit 0 with the run left `running`), and a process that reaches its end
 * with a run still open exits 1 with the run marked failed.
 */
import { execa } from 'execa';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it, vi } from 'vitest';
import { isAlive } from '../contract/processes.js';
import { NEO_BIN, runNeo } from '../helpers/cli.js';
import { tempDir, writeTree } from '../helpers/temp.js';
import { onlyRunId, readEvents, waitForOutput } from './flow-helpers.js';

const ABANDONED = fileURLToPath(new URL('../fixtures/flows/abandoned-run.mjs', import.meta.url));
const HANG = 'turns:\n  - - say: thinking\n    - hang:\n';

async function project(files: Record<string, string>) {
  const root = await tempDir('neo-silent-');
  const dir = join(root, 'p');
  const home = join(root, 'home');
  await writeTree(root, { 'home/.keep': '' });
  await writeTree(dir, files);
  return { dir, home };
}

describe('a silent agent never makes neo exit 0', () => {
  it('neo flow run: the hanging step stalls and fails; the run is recorded failed, not left running', async () => {
    const { dir, home } = await project({
      'hang.yaml': HANG,
      'plan.yaml':
        'name: silent\nworkspace: { isolation: inplace }\ndefaults: { backend: script }\nsteps:\n  - { id: a, brief: do it, script: hang.yaml, idleTimeout: 1s }\n',
    });
    const result = await runNeo(['flow', 'run', 'plan.yaml'], { cwd: dir, env: { NEO_HOME: home } });
    expect(result.exitCode).not.toBe(0);
    const runId = await onlyRunId(home);
    const record = JSON.parse(await readFile(join(home, 'runs', runId, 'run.json'), 'utf8'));
    expect(record.status).toBe('failed');
    expect(record.steps.a.error.code).toBe('FLOW_STEP_STALLED');
    expect((await readEvents(home, runId)).at(-1)).toMatchObject({ type: 'run.finished', status: 'failed' });
  });

  it('neo persona run: the stall fails the persona', async () => {
    const { dir, home } = await project({ 'hang.yaml': HANG });
    await writeTree(home, {
      'neo.yaml': 'defaults: { idleTimeout: 1s }\n',
      'agents/waiter.md': '---\ndescription: waits\ndriver: true\nbackend: script\n---\nWait.\n',
    });
    const result = await runNeo(
      ['persona', 'run', 'waiter', '--brief', 'b', '--script', join(dir, 'hang.yaml'), '--cwd', dir],
      { cwd: dir, env: { NEO_HOME: home } },
    );
    expect(result.exitCode).toBe(1);
    expect(result.stdout).toMatch(/stalled/);
  });

  it('neo script play: a hang keeps playing until Ctrl-C, which exits 130', async () => {
    const { dir, home } = await project({ 'hang.yaml': HANG });
    const child = execa(process.execPath, [NEO_BIN, 'script', 'play', 'hang.yaml'], {
      cwd: dir,
      env: { NO_COLOR: '1', NEO_HOME: home },
      reject: false,
    });
    await waitForOutput(child, /say\s+thinking/);
    // Long past the ~0.4 s in which a process with nothing keeping it alive ends.
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect(child.exitCode).toBeNull();
    child.kill('SIGINT');
    expect((await child).exitCode).toBe(130);
  });

  it('neo script play: a second Ctrl-C kills at once, and the command the script ran dies with it', async () => {
    const { dir, home } = await project({
      'stubborn.yaml': 'turns:\n  - - run: { command: \'trap "" TERM; echo $$ > cmd.pid; sleep 30\' }\n',
    });
    const child = execa(process.execPath, [NEO_BIN, 'script', 'play', 'stubborn.yaml', '--posture', 'full'], {
      cwd: dir,
      env: { NO_COLOR: '1', NEO_HOME: home },
      reject: false,
    });
    let command = 0;
    while (!(command > 0 && isAlive(command))) {
      command = Number((await readFile(join(dir, 'cmd.pid'), 'utf8').catch(() => '')).trim());
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const interrupting = waitForOutput(child, /interrupting…/, 'stderr');
    child.kill('SIGINT');
    await interrupting;
    child.kill('SIGINT');
    expect((await child).signal).toBe('SIGINT');
    // It leads its own group: the terminal's Ctrl-C never reaches it, so neo must have killed it
    // (SIGKILL to its group; the kernel and init finish reaping it a moment after neo is gone).
    await vi.waitFor(() => expect(isAlive(command)).toBe(false), { timeout: 2000, interval: 20 });
  });
});

describe('the end guard', () => {
  it('a process that reaches its end with a run still running exits 1 and records the run failed with the cause', async () => {
    const { dir, home } = await project({
      'plan.yaml':
        'name: stuck\nworkspace: { isolation: inplace }\ndefaults: { backend: script }\nsteps:\n  - { id: a, brief: do it }\n',
    });
    const result = await execa(process.execPath, [ABANDONED, home, dir, join(dir, 'plan.yaml')], {
      cwd: dir,
      reject: false,
      timeout: 30_000,
    });
    expect(result.stdout).toBe('');
    expect(result.exitCode).toBe(1);
    expect(result.stderr).toMatch(
      /^neo: error\[CLI_ABANDONED\]: neo ran out of work to wait for while `neo flow run` was still running: .*; marked failed: run \S+$/,
    );
    const runId = await onlyRunId(home);
    const record = JSON.parse(await readFile(join(home, 'runs', runId, 'run.json'), 'utf8'));
    expect(record.status).toBe('failed');
    expect(record.reason).toMatchObject({ code: 'FLOW_ABANDONED' });
    expect(record.pid).toBeUndefined();
    const events = await readEvents(home, runId);
    expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i + 1));
    expect(events.at(-1)).toMatchObject({ type: 'run.finished', status: 'failed', reason: { code: 'FLOW_ABANDONED' } });
  });
});
