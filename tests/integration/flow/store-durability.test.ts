/**
 * What a run's end waits for on disk: run.json (the sealed record neo reads back) is fsynced
 * before its rename; snapshot.json (a copy for people, never read back) is replaced atomically
 * but not fsynced — one fsync less at the end of every run.
 */
import { readFileSync, readlinkSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { RunStore } from '../../../engine/flow/store/run-store.js';
import { planHash } from '../../../engine/flow/store/plan-pin.js';
import type { RunRecord } from '../../../engine/flow/store/run-files.js';
import type { CompiledPlan } from '../../../engine/flow/core/plan.js';
import type { RunState } from '../../../engine/flow/core/state.js';
import { tempDir } from '../../helpers/temp.js';

/** The files fsynced synchronously, by name. */
const synced: string[] = [];
vi.mock('node:fs', async (original) => {
  const actual = await original<typeof import('node:fs')>();
  return {
    ...actual,
    fsyncSync: (fd: number) => {
      synced.push(readlinkSync(`/proc/self/fd/${fd}`));
      actual.fsyncSync(fd);
    },
  };
});

const plan = { name: 'f', file: '/p/plan.yaml', projectDir: '/p', steps: [] } as unknown as CompiledPlan;
const record: RunRecord = {
  version: 1,
  runId: '20260101-000000-000009',
  flow: 'f',
  planFile: '/p/plan.yaml',
  status: 'succeeded',
  createdAt: 't',
  updatedAt: 't',
  inputs: {},
  manifest: { setHash: 'h', planHash: planHash(plan), definitions: [] },
  options: {},
  ledger: { turns: 0, tokens: 0, costUsd: 0, wallMs: 0 },
  steps: {},
  segments: [],
};

describe("the run store's end", () => {
  it('fsyncs run.json and writes snapshot.json whole without an fsync', async () => {
    const home = await tempDir('neo-store-durability-');
    const store = await RunStore.create(home, record, plan);
    await store.barrier();
    synced.length = 0;
    const state = { runId: record.runId, seq: 0, status: 'succeeded', steps: {} } as unknown as RunState;
    store.settleNow(state, record);
    await store.close();
    expect(synced.map((file) => file.replace(/\.\d+\.[0-9a-f]{8}\.tmp$/, '')).map((f) => f.split('/').pop())).toEqual([
      'run.json',
    ]);
    const snapshot = JSON.parse(readFileSync(join(store.dir, 'snapshot.json'), 'utf8')) as { machine: string };
    expect(snapshot.machine).toBe('settled');
  });
});
