/** The e2e leak harness finds what a test leaves behind (tests/setup/e2e-leaks.ts relies on it). */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { leftProcesses, leftRecords, runningNow } from '../../helpers/leaks.js';
import { tempDir, writeTree } from '../../helpers/temp.js';

describe('the leak harness', () => {
  it('finds a process that left the tree but runs with a NEO_HOME inside the test folders, and one that descends from the test', async () => {
    const root = await tempDir('neo-leaks-');
    const before = runningNow();
    const detached = spawn('sleep', ['30'], {
      detached: true,
      stdio: 'ignore',
      env: { PATH: process.env.PATH, NEO_HOME: join(root, 'home') },
    });
    const child = spawn('sleep', ['30'], { stdio: 'ignore', cwd: '/' });
    try {
      await new Promise((resolve) => setTimeout(resolve, 100));
      const found = leftProcesses({ roots: [root], before }).map((p) => p.pid);
      expect(found).toEqual(expect.arrayContaining([detached.pid, child.pid]));
      // What ran before the test is not the test's.
      expect(leftProcesses({ roots: [root], before: runningNow() })).toEqual([]);
    } finally {
      detached.kill('SIGKILL');
      child.kill('SIGKILL');
    }
  });

  it('finds a run left running and an events file with a gap, and keeps quiet about an allowed run', async () => {
    const root = await tempDir('neo-leaks-');
    const line = (seq: number) => `${JSON.stringify({ type: 'x', seq, at: '' })}\n`;
    await writeTree(root, {
      'home/runs/r1/run.json': JSON.stringify({ status: 'running' }),
      'home/runs/r1/events.jsonl': line(1) + line(3),
      'home/runs/r2/run.json': JSON.stringify({ status: 'succeeded' }),
      'home/runs/r2/events.jsonl': line(1) + line(2),
      'home/code-sessions/s1/events.jsonl': line(1) + '{"torn',
    });
    const problems = leftRecords({ roots: [root], before: new Set() });
    expect(problems).toEqual([
      `run r1 in ${join(root, 'home')} is left running`,
      `${join(root, 'home/runs/r1/events.jsonl')}:2 has seq 3: the log has a gap`,
      `${join(root, 'home/code-sessions/s1/events.jsonl')}:2 is not a whole event line`,
    ]);
    expect(leftRecords({ roots: [root], before: new Set(), allowedRuns: new Set(['r1']) })).toHaveLength(2);
  });
});
