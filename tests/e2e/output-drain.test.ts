/**
 * A slow reader gets all of neo's output: `neo flow show --json | jq` used to receive 65,536
 * bytes (a pipe's buffer) and a clean exit, because neo exited with the rest still queued.
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { NEO_BIN, runNeo } from '../helpers/cli.js';
import { watchFolder } from '../helpers/leaks.js';
import { tempDir, writeTree } from '../helpers/temp.js';
import { onlyRunId } from './flow-helpers.js';

/**
 * Runs neo with its stdout read only after a second's pause, like a busy `jq`; returns what
 * arrived and how neo exited. node:child_process, not execa: execa reads a child's stdout on
 * its own even when told not to buffer it, which is no slow reader at all.
 */
async function throughSlowReader(args: string[], cwd: string, home: string) {
  watchFolder(home);
  const child = spawn(process.execPath, [NEO_BIN, ...args], {
    cwd,
    env: { ...process.env, NO_COLOR: '1', NEO_HOME: home },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  child.stdout.pause();
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  await new Promise((resolve) => setTimeout(resolve, 1000));
  const chunks: Buffer[] = [];
  for await (const chunk of child.stdout) chunks.push(chunk as Buffer);
  return { exitCode: await exited, stdout: Buffer.concat(chunks).toString('utf8') };
}

describe('output through a slow pipe', () => {
  it('1 MB of --json arrives whole before neo exits 0', async () => {
    const root = await tempDir('neo-e2e-drain-');
    const dir = join(root, 'p');
    const home = join(root, 'home');
    const steps = Array.from(
      { length: 32 },
      (_, i) => `  - { id: s${i}, run: 'head -c 200000 /dev/zero | tr "\\\\0" a; echo' }\n`,
    ).join('');
    await writeTree(dir, { 'plan.yaml': `name: big\nworkspace: { isolation: inplace }\nsteps:\n${steps}` });
    expect((await runNeo(['flow', 'run', 'plan.yaml'], { cwd: dir, env: { NEO_HOME: home } })).exitCode).toBe(0);
    const runId = await onlyRunId(home);
    const shown = await throughSlowReader(['flow', 'show', runId, '--json'], dir, home);
    expect(shown.exitCode).toBe(0);
    expect(shown.stdout.length).toBeGreaterThan(1_000_000);
    expect((JSON.parse(shown.stdout) as { record: { runId: string } }).record.runId).toBe(runId);
  });
});
