import { appendFile, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { RunEvent } from '../../../engine/flow/core/events.js';
import { RunStore } from '../../../engine/flow/store/run-store.js';
import { readRunLog } from '../../../engine/flow/store/checked-run.js';
import { planHash } from '../../../engine/flow/store/plan-pin.js';
import type { RunRecord } from '../../../engine/flow/store/run-files.js';
import type { CompiledPlan } from '../../../engine/flow/core/plan.js';
import { tempDir } from '../../helpers/temp.js';

const plan = {
  name: 'f',
  file: '/p/plan.yaml',
  projectDir: '/p',
  inputs: {},
  env: {},
  workspace: {},
  maxParallel: 1,
  budgets: {},
  steps: [],
} as CompiledPlan;
const record = (runId: string): RunRecord => ({
  version: 1,
  runId,
  flow: 'f',
  planFile: '/p/plan.yaml',
  status: 'running',
  createdAt: 't',
  updatedAt: 't',
  inputs: {},
  manifest: { setHash: 'h', planHash: planHash(plan), definitions: [] },
  options: {},
  ledger: { turns: 0, tokens: 0, costUsd: 0, wallMs: 0 },
  steps: {},
  segments: [],
});
const event = (seq: number): RunEvent => ({
  type: 'step.skipped',
  step: 'a',
  reason: 'if',
  seq,
  at: '2026-01-01T00:00:00.000Z',
});

describe('the run store', () => {
  it('appends events in order and resolves durable() once they reached the file', async () => {
    const home = await tempDir();
    const store = await RunStore.create(home, record('20260101-000000-000001'), plan);
    const waited = store.durable(3);
    void store.append(event(1));
    void store.append(event(2));
    void store.append(event(3));
    await waited;
    const lines = (await readFile(join(store.dir, 'events.jsonl'), 'utf8')).trim().split('\n');
    expect(lines.map((l) => JSON.parse(l).seq)).toEqual([1, 2, 3]);
    await store.close();
  });

  it('cuts a torn last line on open so the next append starts clean; a line without its MAC is tampering', async () => {
    const home = await tempDir();
    const runId = '20260101-000000-000002';
    const store = await RunStore.create(home, record(runId), plan);
    await store.append(event(1));
    await store.append(event(2));
    await store.close();
    await appendFile(join(store.dir, 'events.jsonl'), '{"type":"step.sk');
    const opened = await RunStore.open(home, runId);
    expect(opened.events.map((e) => e.seq)).toEqual([1, 2]);
    await opened.store.append(event(3));
    await opened.store.close();
    expect((await readRunLog(home, runId)).events.map((e) => e.seq)).toEqual([1, 2, 3]);
    await appendFile(join(store.dir, 'events.jsonl'), `${JSON.stringify(event(4))}\n`);
    await expect(readRunLog(home, runId)).rejects.toMatchObject({
      code: 'STORE_TAMPERED',
      message: `${join(store.dir, 'events.jsonl')}:4: a line without its MAC`,
    });
  });

  it('names a missing run with the fix', async () => {
    await expect(RunStore.open(await tempDir(), '20260101-000000-00000f')).rejects.toMatchObject({
      code: 'FLOW_RUN_NOT_FOUND',
      hint: 'list runs with `neo flow list`',
    });
    // Something that is not a run id never becomes a path.
    await expect(RunStore.open(await tempDir(), '../../evil')).rejects.toMatchObject({ code: 'FLOW_BAD_RUN_ID' });
  });
});
