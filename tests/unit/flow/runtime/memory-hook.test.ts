/**
 * The flow's seam to memory: each verdict neo saw becomes one decision of the right kind, in the
 * user's repository's memory; a memory that cannot be written never fails the caller.
 */
import { existsSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  noteApprovalRejected,
  memorySite,
  noteGateRefusal,
  noteStepOutcome,
  openingMemory,
  type MemorySite,
} from '../../../../engine/flow/runtime/memory-hook.js';
import type { SessionPort } from '../../../../engine/flow/agent/driver.js';
import { memoryDir } from '../../../../engine/memory/paths/index.js';
import type { AgentSettings } from '../../../../engine/flow/core/plan.js';
import { closeRunMemory, openMemory, queryDecisions } from '../../../../engine/memory/index.js';
import { tempDir } from '../../../helpers/temp.js';

async function site(): Promise<MemorySite & { repo: string }> {
  const root = await tempDir('neo-memory-hook-');
  const repo = join(root, 'repo');
  await mkdir(join(repo, '.git'), { recursive: true });
  const workspace = {
    isolation: 'worktree' as const,
    path: join(root, 'wt'),
    root: join(root, 'wt'),
    projectDir: repo,
    repo,
  };
  const spec = { step: 'fix', attempt: 1, iteration: 1, exec: 'fix#1' };
  return {
    repo,
    ...memorySite(spec, { home: join(root, 'home'), runId: 'r1', workspace, startedAt: () => '2026-12-06T00:00:00Z' }),
  };
}

const settings = {
  brief: 'fix sum.js',
  backend: 'script',
  verify: { run: 'npm test' },
} as unknown as AgentSettings;
const diff = {
  files: [{ path: 'sum.js', status: 'M' }],
  summary: '',
  unified: '-a\n+b\n',
  truncated: false,
  source: 'git',
};

describe('the memory hook', () => {
  it('records a refusal, an accepted step, a protected edit, an escape and a rejection, each once (a moment met again adds nothing)', async () => {
    const s = await site();
    await noteGateRefusal(
      s,
      settings,
      { passed: false, exitCode: 1, tail: 'FAIL', timedOut: false, durationMs: 1 },
      async () => diff as never,
      1,
    );
    await noteGateRefusal(
      s,
      settings,
      { passed: true, exitCode: 0, tail: '', timedOut: false, durationMs: 1 },
      async () => diff as never,
      2,
    );
    await noteStepOutcome(s, settings, { status: 'succeeded', verdict: 'success', outputs: { diff } });
    // The same moment met again (a resumed execution): nothing new.
    await noteStepOutcome(s, settings, { status: 'succeeded', verdict: 'success', outputs: { diff } });
    await noteStepOutcome(s, settings, {
      status: 'failed',
      verdict: 'protected-edit',
      outputs: { diff },
      error: { code: 'FLOW_PROTECTED_EDIT', message: 'the agent changed protected path test/a.js' },
    });
    await noteStepOutcome(s, settings, {
      status: 'failed',
      verdict: 'escaped',
      outputs: { diff },
      error: { code: 'FLOW_ESCAPE', message: 'the agent changed 1 path outside its workspace' },
    });
    await noteStepOutcome(s, settings, {
      status: 'failed',
      verdict: 'failed',
      outputs: { diff, gate: { passed: false, rejudged: true, tail: 'FAIL late' } },
      error: { code: 'FLOW_GATE_FAILED', message: 'the workspace changed after the gate passed (sum.js)' },
    });
    // A failure neo has no verdict of its own for (an interrupt) is not a decision.
    await noteStepOutcome(s, settings, {
      status: 'failed',
      outputs: {},
      error: { code: 'FLOW_INTERRUPTED', message: 'interrupted' },
    });
    await noteApprovalRejected(
      { ...s, step: 'ship' },
      { decision: 'reject', by: 'ana', note: 'breaks rounding' },
      'Ship it?',
    );
    closeRunMemory();
    const { db } = openMemory(s.home, s.repo);
    const decisions = queryDecisions(db, {}).reverse();
    expect(decisions.map((d) => [d.kind, d.source, d.step, d.verdict, d.reason, d.files])).toEqual([
      ['gate-refused', 'neo', 'fix', 'refused', 'the check `npm test` exited 1', ['sum.js']],
      ['step-succeeded', 'neo', 'fix', 'success', 'the check `npm test` passed on the final tree', ['sum.js']],
      ['protected-edit', 'neo', 'fix', 'protected-edit', 'FLOW_PROTECTED_EDIT', ['sum.js']],
      ['escape', 'neo', 'fix', 'escape', 'FLOW_ESCAPE', ['sum.js']],
      ['gate-refused', 'neo', 'fix', 'refused', 'FLOW_GATE_FAILED', ['sum.js']],
      // The person's rejection concerns what the run changed.
      ['approval-rejected', 'neo', 'ship', 'reject', 'ana chose `reject`: breaks rounding', ['sum.js']],
    ]);
    db.close();
  });

  it('never throws when memory cannot be written', async () => {
    const s = await site();
    await mkdir(s.home, { recursive: true });
    await writeFile(join(s.home, 'memory'), 'a file where the folder should be');
    await noteStepOutcome(s, settings, { status: 'succeeded', verdict: 'success', outputs: { diff } });
    await noteApprovalRejected(s, { decision: 'reject', by: 'ana' }, 'Ship it?');
    closeRunMemory();
  });

  it("opens the repository's memory once the step's first start returned, and never makes one it lacks", async () => {
    const calls: string[] = [];
    const port: SessionPort = {
      execute: async (input) => {
        calls.push(input.op);
        return { sessionId: 'cs-1' } as never;
      },
      setScopeConstraints: () => undefined,
      onSessionEvent: () => () => undefined,
      releaseAllOwnedBy: async () => undefined,
    };
    const start = { op: 'start', brief: 'fix it' } as never;
    const caller = { scope: 'flow:r1' } as never;
    const settled = () => new Promise((resolve) => setTimeout(resolve, 200));
    // A repository without a memory: the start goes through, and no memory appears.
    const bare = await site();
    const folder = memoryDir(bare.home, bare.repo);
    await openingMemory(port, bare).execute(start, caller);
    await settled();
    expect(existsSync(join(folder, 'memory.db'))).toBe(false);
    // With one, the process holds it open from the start on (SQLite's WAL file is there while it does).
    openMemory(bare.home, bare.repo).db.close();
    expect(existsSync(join(folder, 'memory.db-wal'))).toBe(false);
    const withMemory = openingMemory(port, bare);
    await withMemory.execute({ op: 'read-turn' } as never, caller);
    await settled();
    expect(existsSync(join(folder, 'memory.db-wal'))).toBe(false);
    await withMemory.execute(start, caller);
    await settled();
    expect(existsSync(join(folder, 'memory.db-wal'))).toBe(true);
    expect(calls).toEqual(['start', 'read-turn', 'start']);
    closeRunMemory();
  });
});
