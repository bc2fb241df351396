/**
 * The run's hand-off is coalesced: events that come in a burst are written once, as the run at
 * the latest of them, and whoever waits for it (a step's brief, the run's end) gets it at once.
 */
import { mkdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { handoffWritten, noteHandoff } from '../../../../engine/flow/runtime/handoff-hook.js';
import type { CompiledPlan } from '../../../../engine/flow/core/plan.js';
import type { RunEvent } from '../../../../engine/flow/core/events.js';
import type { RunState, StepState } from '../../../../engine/flow/core/state.js';
import { StepTable } from '../../../../engine/flow/core/step-table.js';
import { handoffDir } from '../../../../engine/memory/index.js';
import { memoryDir, repositoryRoot, writeHandoff } from '../../../../engine/memory/paths/index.js';
import { tempDir } from '../../../helpers/temp.js';

vi.mock('../../../../engine/memory/paths/index.js', async (original) => {
  const actual = await original<typeof import('../../../../engine/memory/paths/index.js')>();
  return { ...actual, writeHandoff: vi.fn(actual.writeHandoff) };
});

const plan = {
  name: 'three',
  steps: ['a', 'b', 'c'].map((id) => ({ id, kind: 'run', needs: [] })),
} as unknown as CompiledPlan;

function stateAfter(done: string[]): RunState {
  return {
    runId: 'r1',
    status: 'running',
    steps: StepTable.of(done.map((id) => [id, { status: 'succeeded' } as StepState])),
  } as unknown as RunState;
}

describe('the run hand-off', () => {
  it('writes a burst of step ends once, as the run at the last of them, when it is waited for', async () => {
    const root = await tempDir('neo-handoff-hook-');
    const repo = join(root, 'repo');
    await mkdir(join(repo, '.git'), { recursive: true });
    const home = join(root, 'home');
    const workspace = { isolation: 'inplace' as const, path: repo, root: repo, projectDir: repo, repo };
    const file = join(handoffDir(memoryDir(home, repositoryRoot(repo))), 'r1', 'state.json');
    const event = { type: 'step.completed' } as RunEvent;

    noteHandoff(home, workspace, event, stateAfter(['a']), plan);
    noteHandoff(home, workspace, event, stateAfter(['a', 'b']), plan);
    noteHandoff(home, workspace, event, stateAfter(['a', 'b', 'c']), plan);
    await handoffWritten('r1');
    expect(vi.mocked(writeHandoff)).toHaveBeenCalledTimes(1);
    const first = JSON.parse(await readFile(file, 'utf8')) as { completed: Array<{ step: string }> };
    expect(first.completed.map((c) => c.step)).toEqual(['a', 'b', 'c']);
    const written = (await stat(file)).mtimeMs;

    // Nothing new since: waiting again writes nothing.
    await handoffWritten('r1');
    expect((await stat(file)).mtimeMs).toBe(written);
    expect(vi.mocked(writeHandoff)).toHaveBeenCalledTimes(1);
  });
});
