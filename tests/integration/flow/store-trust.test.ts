/**
 * The run store believes only what it wrote: the event chain, run.json's seal, the plan pin,
 * a log replaced or written under a live run, links in the run's folder, and answer files.
 */
import {
  appendFileSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { RunEvent } from '../../../engine/flow/core/events.js';
import type { CompiledPlan } from '../../../engine/flow/core/plan.js';
import { readCheckedRun, readRunLog, readShownRun } from '../../../engine/flow/store/checked-run.js';
import { planHash } from '../../../engine/flow/store/plan-pin.js';
import type { RunRecord } from '../../../engine/flow/store/run-files.js';
import { RunStore } from '../../../engine/flow/store/run-store.js';
import { listRuns, readRunRecord } from '../../../engine/flow/store/runs.js';
import { claimAnswer, readAnswer, reopenAnswer } from '../../../engine/util/approval-answer.js';
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
const at = '2026-01-01T00:00:00.000Z';
const started: RunEvent = {
  type: 'run.started',
  flow: 'f',
  steps: [],
  inputs: {},
  env: {},
  run: { id: 'x', workspace: '/w', projectDir: '/p' },
  seq: 1,
  at,
};
const skipped = (seq: number): RunEvent => ({ type: 'step.skipped', step: 'a', reason: 'if', seq, at });

/** A run with `count` events, its store closed and run.json written at its last one. */
async function recordedRun(runId = '20260101-000000-000001', count = 4) {
  const home = await tempDir();
  const store = await RunStore.create(home, record(runId), plan);
  await store.append(started);
  for (let seq = 2; seq <= count; seq++) await store.append(skipped(seq));
  store.saveRecord(record(runId));
  await store.close();
  const events = join(store.dir, 'events.jsonl');
  return { home, runId, dir: store.dir, events, lines: () => readFileSync(events, 'utf8').split('\n').filter(Boolean) };
}

describe('the event chain', () => {
  it('a run reads back whole: the events, without their MACs, folded', async () => {
    const { home, runId, lines } = await recordedRun();
    expect(lines()[0]).toMatch(/,"planHash":"[0-9a-f]{64}","mac":"[0-9a-f]{64}"\}$/);
    expect(lines()[1]).toMatch(/"seq":2,"at":"[^"]+","mac":"[0-9a-f]{64}"\}$/);
    const run = await readCheckedRun(home, runId);
    expect(run.events.map((e) => e.seq)).toEqual([1, 2, 3, 4]);
    expect(run.events[0]).toEqual(started);
    expect(run.state.seq).toBe(4);
  });

  it('a changed, moved or foreign line is STORE_TAMPERED at that line', async () => {
    const changed = await recordedRun();
    const text = changed.lines();
    text[2] = text[2]!.replace('"reason":"if"', '"reason":"ok"');
    writeFileSync(changed.events, `${text.join('\n')}\n`);
    await expect(readRunLog(changed.home, changed.runId)).rejects.toMatchObject({
      code: 'STORE_TAMPERED',
      message: `${changed.events}:3: the line does not match its MAC (it was written or moved by something other than neo)`,
    });

    const swapped = await recordedRun();
    const lines = swapped.lines();
    writeFileSync(swapped.events, `${[lines[0], lines[2], lines[1], lines[3]].join('\n')}\n`);
    await expect(readRunLog(swapped.home, swapped.runId)).rejects.toMatchObject({ code: 'STORE_TAMPERED' });

    // Another run's log, under the same key, does not chain to this run's id.
    const other = await recordedRun('20260101-000000-000002');
    const mine = await recordedRun('20260101-000000-000003');
    writeFileSync(mine.events, readFileSync(other.events));
    await expect(readRunLog(mine.home, mine.runId)).rejects.toMatchObject({
      code: 'STORE_TAMPERED',
      message: expect.stringContaining(`${mine.events}:1:`),
    });
  });

  it('lines cut from the end are caught against the chain point run.json was written at', async () => {
    const { home, runId, events, lines } = await recordedRun();
    writeFileSync(events, `${lines().slice(0, 2).join('\n')}\n`);
    // The chain itself is whole: only run.json tells it is short.
    expect((await readRunLog(home, runId)).events).toHaveLength(2);
    await expect(readCheckedRun(home, runId)).rejects.toMatchObject({
      code: 'STORE_TAMPERED',
      message: `${events}: the log ends at seq 2, but run.json was written after seq 4: lines were removed`,
    });
  });

  it('a torn last line is not tampering: open cuts it and appends chain on', async () => {
    const { home, runId, events } = await recordedRun();
    appendFileSync(events, '{"type":"step.skipped","st');
    const opened = await RunStore.open(home, runId);
    expect(opened.events).toHaveLength(4);
    await opened.store.append(skipped(5));
    await opened.store.close();
    expect((await readCheckedRun(home, runId)).events).toHaveLength(5);
  });
});

describe('run.json and plan.json', () => {
  it('a changed run.json is refused to act on and shown tampered; a changed plan.json names plan.json', async () => {
    const a = await recordedRun();
    const path = join(a.dir, 'run.json');
    const sealed = JSON.parse(readFileSync(path, 'utf8'));
    writeFileSync(path, JSON.stringify({ ...sealed, workspace: { isolation: 'inplace', path: '/home/user' } }));
    await expect(readRunRecord(a.home, a.runId)).rejects.toMatchObject({
      code: 'STORE_TAMPERED',
      message: `${path}: the record does not match its MAC`,
    });
    await expect(RunStore.open(a.home, a.runId)).rejects.toMatchObject({ code: 'STORE_TAMPERED' });
    const [shown] = await listRuns(a.home);
    expect(shown).toMatchObject({ runId: a.runId, status: 'tampered', reason: { code: 'STORE_TAMPERED' } });
    expect(shown).not.toHaveProperty('workspace');

    const b = await recordedRun();
    writeFileSync(join(b.dir, 'plan.json'), JSON.stringify({ ...plan, name: 'other' }));
    await expect(RunStore.open(b.home, b.runId)).rejects.toMatchObject({
      code: 'STORE_TAMPERED',
      message: `${join(b.dir, 'plan.json')}: not the plan this run pinned (its hash differs from the one its events record)`,
    });
    const { record: tampered, state } = await readShownRun(b.home, b.runId);
    expect(tampered.status).toBe('tampered');
    expect(state).toBeNull();
  });

  it('a pinned plan edit (a watched edit, a rebase) is what the chain pins from then on', async () => {
    const { home, runId } = await recordedRun();
    const opened = await RunStore.open(home, runId);
    const edited = { ...plan, maxParallel: 2 };
    opened.store.pinPlan(edited);
    await opened.store.append({ type: 'plan.updated', hash: 'h', added: [], removed: [], changed: [], seq: 5, at });
    await opened.store.close();
    expect((await readCheckedRun(home, runId)).plan).toEqual(edited);
  });

  it('a run recorded before neo authenticated runs is shown unverified, never acted on', async () => {
    const { home, runId, dir, events, lines } = await recordedRun();
    const strip = (text: string) => {
      const { mac: _mac, chain: _chain, planHash: _pin, ...rest } = JSON.parse(text);
      return JSON.stringify(rest);
    };
    writeFileSync(events, `${lines().map(strip).join('\n')}\n`);
    writeFileSync(join(dir, 'run.json'), strip(readFileSync(join(dir, 'run.json'), 'utf8')));
    await expect(RunStore.open(home, runId)).rejects.toMatchObject({
      code: 'STORE_UNAUTHENTICATED',
      hint: expect.stringContaining('start the flow again'),
    });
    const shown = await readShownRun(home, runId);
    expect(shown.record).toMatchObject({ status: 'running', unverified: true });
    expect(shown.events).toHaveLength(4);
  });
});

describe('a live run', () => {
  it('a log renamed over the live one, or written by another, fails the next append as tampered', async () => {
    const { home, runId, events, lines } = await recordedRun();
    const opened = await RunStore.open(home, runId);
    const failures: unknown[] = [];
    opened.store.onFailure((error) => failures.push(error));
    await opened.store.append(skipped(5));
    writeFileSync(`${events}.forged`, `${lines().join('\n')}\n`);
    renameSync(`${events}.forged`, events);
    await expect(opened.store.append(skipped(6))).rejects.toMatchObject({
      code: 'STORE_TAMPERED',
      message: `${events}: the log was replaced while the run was writing it`,
    });
    expect(failures).toHaveLength(1);
    // Poisoned: nothing more is written, and nobody waits for it.
    await expect(opened.store.durable(6)).rejects.toMatchObject({ code: 'STORE_TAMPERED' });
    await opened.store.close();

    const other = await recordedRun('20260101-000000-000009');
    const live = await RunStore.open(other.home, other.runId);
    appendFileSync(other.events, `${other.lines()[1]}\n`);
    await expect(live.store.append(skipped(5))).rejects.toMatchObject({
      code: 'STORE_TAMPERED',
      message: expect.stringContaining('the log was written by something other than this run'),
    });
    await live.store.close();
  });

  it('a link in the run folder, or one level into snapshots, fails the store before the next execution', async () => {
    const host = await tempDir();
    for (const planted of [['snapshots', 'objects'], ['outputs']]) {
      const { home, runId, dir } = await recordedRun();
      const opened = await RunStore.open(home, runId);
      await opened.store.barrier();
      if (planted.length > 1) mkdirSync(join(dir, planted[0]!));
      symlinkSync(host, join(dir, ...planted));
      await expect(opened.store.barrier()).rejects.toMatchObject({
        code: 'STORE_TAMPERED',
        message: expect.stringContaining(`${join(dir, ...planted)}: a link in the run's folder`),
      });
      await opened.store.close();
    }
  });
});

describe('answer files', () => {
  it('only an answer neo sealed for this question is taken', async () => {
    const home = await tempDir();
    const path = join(home, 'approvals', 'r', 'ship.json');
    const scope = { runId: '20260101-000000-000001', key: 'ship' };
    const answer = { decision: 'approve', by: 'cli (me)', at };
    expect(await claimAnswer(home, path, scope, answer)).toEqual({ won: true, answer });
    // Read, and kept: the answer of record until the question is asked again.
    expect(await readAnswer(home, path, scope)).toEqual(answer);
    expect(await readAnswer(home, path, scope)).toEqual(answer);
    await reopenAnswer(path);
    expect(await readAnswer(home, path, scope)).toBeUndefined();

    // Unsealed, sealed for another question, or changed after sealing: none is acted on, and each is removed.
    writeFileSync(path, JSON.stringify(answer));
    expect(await readAnswer(home, path, scope)).toBeUndefined();
    expect(existsSync(path)).toBe(false);
    await claimAnswer(home, path, { ...scope, key: 'other' }, answer);
    expect(await readAnswer(home, path, scope)).toBeUndefined();
    await claimAnswer(home, path, scope, { ...answer, decision: 'reject' });
    const sealed = JSON.parse(readFileSync(path, 'utf8'));
    writeFileSync(path, JSON.stringify({ ...sealed, decision: 'approve' }));
    expect(await readAnswer(home, path, scope)).toBeUndefined();
  });

  it('is check-and-set: the first claim wins, a later one learns which did, a forged file blocks nothing', async () => {
    const home = await tempDir();
    const path = join(home, 'approvals', 'r', 'ship.json');
    const scope = { runId: '20260101-000000-000001', key: 'ship' };
    const approve = { decision: 'approve', by: 'web', at };
    const reject = { decision: 'reject', by: 'cli (me)', at };
    const claims = await Promise.all([claimAnswer(home, path, scope, approve), claimAnswer(home, path, scope, reject)]);
    const winners = claims.filter((c) => c.won);
    expect(winners).toHaveLength(1);
    expect(claims.map((c) => c.answer)).toEqual([winners[0]!.answer, winners[0]!.answer]);
    expect(await readAnswer(home, path, scope)).toEqual(winners[0]!.answer);
    expect(readdirSync(join(home, 'approvals', 'r'))).toEqual(['ship.json']);

    writeFileSync(path, JSON.stringify({ ...approve, mac: 'forged' }));
    expect(await claimAnswer(home, path, scope, reject)).toEqual({ won: true, answer: reject });
  });
});
