import { appendFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { harness, OWNER } from '../../unit/session/harness.js';

describe('adopt', () => {
  it('revives a record under its own id after a restart: seq continues gaplessly, rounds continue, one-shot', async () => {
    const first = await harness({ backends: undefined });
    const { sessionId } = await first.service.execute(
      { op: 'start', brief: 'long task', backend: 'fake', maxRounds: 3, taskTags: ['refactor'] },
      OWNER,
    );
    first.transport.last.emit({ type: 'started', externalSessionId: 'ext-A' }, { type: 'turn_complete', costUsd: 1 });
    await first.service.execute({ op: 'read-turn', sessionId }, OWNER);
    // The process dies without releasing: simulate by sweeping in a new service on the same home.
    const lastBefore = await first.service.store.lastEventSeq(sessionId);
    expect(lastBefore).toBe(4);
    // Leave a torn line behind, as a crash mid-append would.
    await first.service.store.closeSession(sessionId);
    await appendFile(join(first.home, 'code-sessions', sessionId, 'events.jsonl'), '{"seq":5,"at":"2026');

    const second = await harness({ home: first.home });
    expect(await second.service.store.sweepOrphaned()).toEqual([sessionId]);
    expect((await second.service.store.get(sessionId))!.status).toBe('orphaned');
    second.service.setScopeConstraints('resume-1', { adoptRecordId: sessionId, backend: 'fake' });
    const adopted = await second.service.execute({ op: 'start', brief: 'continue' }, { scope: 'resume-1' });
    expect(adopted).toMatchObject({ sessionId, backend: 'fake' });
    expect(second.transport.last.options).toMatchObject({ sessionId, resumeSessionId: 'ext-A' });
    second.transport.last.emit({ type: 'started', externalSessionId: 'ext-B' }, { type: 'turn_complete' });
    expect((await second.service.execute({ op: 'read-turn', sessionId }, { scope: 'resume-1' })).kind).toBe(
      'turn_complete',
    );
    second.transport.last.onGuidance = (_t, a) => a.emit({ type: 'turn_complete' });
    await second.service.execute({ op: 'guide', sessionId, text: 'last one' }, { scope: 'resume-1' });
    // Round budget: 1 before + 2 now = 3 = maxRounds.
    expect(await second.service.execute({ op: 'read-turn', sessionId }, { scope: 'resume-1' })).toMatchObject({
      kind: 'max_rounds',
      rounds: 3,
    });
    await second.service.execute({ op: 'stop', sessionId, outcome: 'success' }, { scope: 'resume-1' });

    const events = (await second.service.store.readEvents(sessionId))!;
    expect(events.map((e) => e.seq)).toEqual(Array.from({ length: events.length }, (_, i) => i + 1));
    expect(events[4]!.event).toMatchObject({ type: 'adopted', roundsElapsed: 1, resumeSessionId: 'ext-A' });
    expect(events.at(-1)!.event).toEqual({ type: 'released', reason: 'explicit', outcome: 'success' });
    const record = (await second.service.store.get(sessionId))!;
    expect(record).toMatchObject({
      taskBrief: 'long task',
      taskTags: ['refactor'],
      roundsElapsed: 3,
      status: 'ended',
      outcome: 'success',
    });
    expect(record.runs.map((r) => [r.ownerScopeId, r.externalSessionId])).toEqual([
      ['owner', 'ext-A'],
      ['resume-1', 'ext-B'],
    ]);
    // One-shot: the next start in the scope mints a fresh session.
    const fresh = await second.service.execute({ op: 'start', brief: 'another' }, { scope: 'resume-1' });
    expect(fresh.sessionId).not.toBe(sessionId);
  });

  it('refuses to adopt a live session or a record that does not exist', async () => {
    const h = await harness();
    const { sessionId } = await h.service.execute({ op: 'start', brief: 'b', backend: 'fake' }, OWNER);
    h.service.setScopeConstraints('resume', { adoptRecordId: sessionId });
    await expect(
      h.service.execute({ op: 'start', brief: 'b', backend: 'fake' }, { scope: 'resume' }),
    ).rejects.toMatchObject({ code: 'SESSION_ALREADY_LIVE' });
    h.service.setScopeConstraints('resume', { adoptRecordId: 'cs_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA' });
    await expect(
      h.service.execute({ op: 'start', brief: 'b', backend: 'fake' }, { scope: 'resume' }),
    ).rejects.toMatchObject({ code: 'SESSION_ADOPT_NOT_FOUND' });
    expect(h.transport.agents).toHaveLength(1);
  });

  it('keeps seq gapless when adopting a cleanly released session in the same process', async () => {
    const h = await harness();
    const { sessionId } = await h.service.execute({ op: 'start', brief: 'b', backend: 'fake' }, OWNER);
    await h.service.execute({ op: 'stop', sessionId }, OWNER);
    h.service.setScopeConstraints(OWNER.scope, { adoptRecordId: sessionId });
    await h.service.execute({ op: 'start', brief: 'b', backend: 'fake' }, OWNER);
    await h.service.execute({ op: 'stop', sessionId }, OWNER);
    const events = (await h.service.store.readEvents(sessionId))!;
    expect(events.map((e) => `${e.seq}:${e.event.type}`)).toEqual([
      '1:created',
      '2:released',
      '3:adopted',
      '4:released',
    ]);
  });
});
