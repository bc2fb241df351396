import { appendFile, mkdir, readFile, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  CodeSessionStore,
  mintSessionId,
  TASK_BRIEF_MAX_CHARS,
  type CodeSessionRecord,
} from '../../../engine/session/index.js';
import { tempDir } from '../../helpers/temp.js';
import { RecordingLog } from './harness.js';

function record(sessionId: string, overrides: Partial<CodeSessionRecord> = {}): CodeSessionRecord {
  return {
    sessionId,
    backendId: 'fake',
    cwd: '/repo',
    maxPosture: 'acceptEdits',
    taskBrief: 'fix the bug',
    taskTags: ['bugfix'],
    status: 'running',
    createdAt: '2026-01-01T00:00:00.000Z',
    updatedAt: '2026-01-01T00:00:00.000Z',
    roundsElapsed: 0,
    runs: [{ startedAt: '2026-01-01T00:00:00.000Z', ownerScopeId: 'owner' }],
    version: 1,
    ...overrides,
  };
}

async function store() {
  const home = await tempDir();
  const log = new RecordingLog();
  return { home, log, store: new CodeSessionStore(home, { log }) };
}

describe('code session store', () => {
  it('round-trips a record and events; the brief is cut to 2 KB', async () => {
    const { home, store: s } = await store();
    const id = mintSessionId();
    await s.createRecord(record(id, { taskBrief: 'b'.repeat(5000) }));
    const onDisk = JSON.parse(await readFile(join(home, 'code-sessions', id, 'meta.json'), 'utf8'));
    expect(onDisk.taskBrief).toHaveLength(TASK_BRIEF_MAX_CHARS);
    expect(onDisk.taskBrief.endsWith('…')).toBe(true);
    expect(onDisk.version).toBe(1);
    for (let seq = 1; seq <= 5; seq++)
      expect(
        await s.append(id, { seq, at: '2026-01-01T00:00:00.000Z', event: { type: 'text', text: `t${seq}` } }),
      ).toBe(true);
    expect((await s.readEvents(id))!.map((e) => e.seq)).toEqual([1, 2, 3, 4, 5]);
    expect((await s.readEvents(id, { afterSeq: 2, limit: 2 }))!.map((e) => e.seq)).toEqual([3, 4]);
    expect(await s.lastEventSeq(id)).toBe(5);
    await s.closeSession(id);
    const fresh = new CodeSessionStore(home);
    expect(await fresh.get(id)).toEqual(onDisk);
    expect((await fresh.readEvents(id))!).toHaveLength(5);
  });

  it('reads a missing session as null, never a throw', async () => {
    const { store: s } = await store();
    const id = mintSessionId();
    expect(await s.get(id)).toBeNull();
    expect(await s.readEvents(id)).toBeNull();
    expect(await s.lastEventSeq(id)).toBe(0);
    expect(await s.patchMeta(id, { status: 'ended' })).toBeNull();
    expect(await s.get('../../etc/passwd')).toBeNull();
    expect(await s.list()).toEqual([]);
  });

  it('skips a torn last line with a warning, and cuts it before appending again', async () => {
    const { home, log, store: s } = await store();
    const id = mintSessionId();
    await s.createRecord(record(id));
    await s.append(id, { seq: 1, at: 'a', event: { type: 'text', text: 'one' } });
    await s.append(id, { seq: 2, at: 'a', event: { type: 'text', text: 'two' } });
    await s.closeSession(id);
    const file = join(home, 'code-sessions', id, 'events.jsonl');
    await appendFile(file, '{"seq":3,"at":"a","ev');
    const reader = new CodeSessionStore(home, { log });
    expect((await reader.readEvents(id))!.map((e) => e.seq)).toEqual([1, 2]);
    expect(log.warnings).toEqual([{ event: 'code_session_events_torn_line', fields: { sessionId: id, lines: [3] } }]);
    expect(await reader.lastEventSeq(id)).toBe(2);
    await reader.openEvents(id);
    await reader.append(id, { seq: 3, at: 'a', event: { type: 'text', text: 'three' } });
    await reader.closeSession(id);
    expect(
      (await readFile(file, 'utf8'))
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l).seq),
    ).toEqual([1, 2, 3]);
  });

  it('finds the last seq from the tail of a large file', async () => {
    const { store: s } = await store();
    const id = mintSessionId();
    await s.createRecord(record(id));
    const big = 'x'.repeat(3000);
    for (let seq = 1; seq <= 100; seq++) void s.append(id, { seq, at: 'a', event: { type: 'text', text: big } });
    expect(await s.lastEventSeq(id)).toBe(100);
  });

  it('patches meta under a per-session lock: concurrent patches all land, the file is always whole', async () => {
    const { home, store: s } = await store();
    const id = mintSessionId();
    await s.createRecord(record(id));
    const file = join(home, 'code-sessions', id, 'meta.json');
    let reads = 0;
    const reader = (async () => {
      for (let i = 0; i < 50; i++) {
        JSON.parse(await readFile(file, 'utf8'));
        reads++;
      }
    })();
    await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        s.patchMeta(id, (r) => ({ roundsElapsed: r.roundsElapsed + 1, taskTags: [...r.taskTags, `t${i}`] })),
      ),
    );
    await reader;
    expect(reads).toBe(50);
    const final = JSON.parse(await readFile(file, 'utf8')) as CodeSessionRecord;
    expect(final.roundsElapsed).toBe(40);
    expect(final.taskTags).toHaveLength(41);
    expect((await readdir(join(home, 'code-sessions', id))).filter((f) => f.endsWith('.tmp'))).toEqual([]);
  });

  it("paces a live record's writes, but not its final one: a release's record is on disk without the wait", async () => {
    const home = await tempDir();
    // An interval no test could sit through: a final patch that waited it out would time out.
    const s = new CodeSessionStore(home, { log: new RecordingLog(), metaIntervalMs: 60_000 });
    const id = mintSessionId();
    await s.createRecord(record(id));
    const file = join(home, 'code-sessions', id, 'meta.json');
    // A chatty patch right after a write is coalesced behind the interval: not on disk yet.
    const paced = s.patchMeta(id, { roundsElapsed: 1 });
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect((JSON.parse(await readFile(file, 'utf8')) as CodeSessionRecord).roundsElapsed).toBe(0);
    // The final patch takes the waiting write with it, at once.
    await s.patchMeta(id, { status: 'ended', state: 'released' }, { final: true });
    await paced;
    const written = JSON.parse(await readFile(file, 'utf8')) as CodeSessionRecord;
    expect(written).toMatchObject({ roundsElapsed: 1, status: 'ended', state: 'released' });
    await s.closeSession(id);
  });

  it('keeps the resume chain: appendRun and setLatestRunExternalSessionId', async () => {
    const { store: s } = await store();
    const id = mintSessionId();
    await s.createRecord(record(id));
    await s.setLatestRunExternalSessionId(id, 'ext-1');
    await s.appendRun(id, { startedAt: '2026-01-02T00:00:00.000Z', ownerScopeId: 'resume-1' });
    await s.setLatestRunExternalSessionId(id, 'ext-2');
    expect((await s.get(id))!.runs).toEqual([
      { startedAt: '2026-01-01T00:00:00.000Z', ownerScopeId: 'owner', externalSessionId: 'ext-1' },
      { startedAt: '2026-01-02T00:00:00.000Z', ownerScopeId: 'resume-1', externalSessionId: 'ext-2' },
    ]);
  });

  it('lists newest first and sweeps running/idle records to orphaned', async () => {
    const { home, store: s } = await store();
    const ids = [mintSessionId(), mintSessionId(), mintSessionId()];
    await s.createRecord(record(ids[0]!, { createdAt: '2026-01-01T00:00:00.000Z', status: 'running' }));
    await s.createRecord(record(ids[1]!, { createdAt: '2026-01-03T00:00:00.000Z', status: 'idle' }));
    await s.createRecord(record(ids[2]!, { createdAt: '2026-01-02T00:00:00.000Z', status: 'ended' }));
    await mkdir(join(home, 'code-sessions', 'not-a-session'));
    await s.close();
    const next = new CodeSessionStore(home);
    expect((await next.list()).map((r) => r.sessionId)).toEqual([ids[1], ids[2], ids[0]]);
    expect((await next.sweepOrphaned()).sort()).toEqual([ids[0], ids[1]].sort());
    expect((await next.list()).map((r) => r.status)).toEqual(['orphaned', 'ended', 'orphaned']);
  });

  it('leaves a record whose host process still runs: a flow that outlived a server restart is not an orphan', async () => {
    const { home, store: s } = await store();
    const [alive, gone] = [mintSessionId(), mintSessionId()];
    const run = (pid: number) => [{ startedAt: '2026-01-01T00:00:00.000Z', ownerScopeId: 'flow', host: { pid } }];
    await s.createRecord(record(alive, { status: 'running', runs: run(process.ppid) }));
    await s.createRecord(record(gone, { status: 'idle', runs: run(2 ** 22 + 1) }));
    await s.close();
    const next = new CodeSessionStore(home);
    expect(await next.sweepOrphaned()).toEqual([gone]);
    expect((await next.get(alive))!.status).toBe('running');
  });

  it('logs a failed event write instead of throwing into the caller', async () => {
    const { home, log, store: s } = await store();
    const id = mintSessionId();
    // A directory where the file should be: no open mode (not even root's) can append to it.
    await mkdir(join(home, 'code-sessions', id, 'events.jsonl'), { recursive: true });
    const ok = await s.append(id, { seq: 1, at: 'a', event: { type: 'text', text: 'x' } });
    expect(ok).toBe(false);
    expect(log.warnings[0]!.event).toBe('code_session_event_write_failed');
  });
});
