/**
 * One source of truth for a session's liveness: an agent that ended itself is never `live`
 * (guidance and interrupts are refused with SESSION_NOT_LIVE), resume takes the ended record
 * (releasing what still holds it), and a person can stop or release a session from the API.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { RunningServer } from '../../../engine/server/index.js';
import { startTestServer } from '../../helpers/serve.js';
import { tempDir } from '../../helpers/temp.js';

const servers: RunningServer[] = [];
afterEach(async () => {
  while (servers.length > 0) await servers.pop()!.close();
});

async function setup(script: string) {
  const started = await startTestServer();
  servers.push(started.server);
  const work = await tempDir('neo-serve-work-');
  await writeFile(join(work, 'package.json'), JSON.stringify({ scripts: { test: 'node -e 0' } }));
  const file = join(work, 'script.yaml');
  await writeFile(file, script);
  const service = started.server.context.service;
  const result = (await service.execute(
    { op: 'start', backend: 'script', brief: 'say things', cwd: work, backendOptions: { script: file } },
    { scope: 'owner' },
  )) as { sessionId: string };
  const turn = (await service.execute({ op: 'read-turn', sessionId: result.sessionId }, { scope: 'owner' })) as {
    kind: string;
  };
  return { ...started, id: result.sessionId, turn: turn.kind };
}

describe('session liveness', () => {
  it('an agent that ended itself is held, not live: guidance is SESSION_NOT_LIVE, resume takes it', async () => {
    const { api, id, turn } = await setup('turns:\n  - - say: Done here.\n    - end: { ok: true }\n');
    expect(turn).toBe('ended');
    const detail = (await api(`/api/code-sessions/${id}`)).body.data;
    expect(detail.record.status).toBe('ended');
    expect([detail.live, detail.held]).toEqual([false, true]);
    const list = (await api('/api/code-sessions')).body.data;
    expect([list.live, list.held]).toEqual([[], [id]]);

    const guided = await api(`/api/code-sessions/${id}/guidance`, { json: { text: 'keep going' } });
    expect(guided.status).toBe(409);
    expect(guided.body.error).toEqual({
      code: 'SESSION_NOT_LIVE',
      message: `code session \`${id}\` has ended (ended); it is not live`,
      hint: 'resume it first (POST …/resume)',
    });
    const interrupted = await api(`/api/code-sessions/${id}/interrupt`, { method: 'POST' });
    expect([interrupted.status, interrupted.body.error?.code]).toEqual([409, 'SESSION_NOT_LIVE']);

    const resumed = await api(`/api/code-sessions/${id}/resume`, { method: 'POST' });
    expect(resumed.status).toBe(200);
    const after = (await api(`/api/code-sessions/${id}`)).body.data;
    expect(after.record.runs).toHaveLength(2);
    const types = after.events.map((e: { event: { type: string } }) => e.event.type);
    expect(types.indexOf('released')).toBeLessThan(types.indexOf('adopted'));
  });

  it('stop ends a live session and releases it; a second stop finds nothing holding it; bodies are checked; a resume drops the old verdict', async () => {
    const { api, id } = await setup('turns:\n  - - say: First turn.\n  - - say: Second.\n');
    expect((await api(`/api/code-sessions/${id}`)).body.data.live).toBe(true);
    const bad = await api(`/api/code-sessions/${id}/stop`, { json: { outcome: 'great' } });
    expect([bad.status, bad.body.error?.code]).toEqual([400, 'SERVER_BAD_BODY']);
    const stopped = await api(`/api/code-sessions/${id}/stop`, { json: { outcome: 'aborted', note: 'from the page' } });
    expect(stopped.status).toBe(200);
    const detail = (await api(`/api/code-sessions/${id}`)).body.data;
    expect([detail.live, detail.held, detail.record.status]).toEqual([false, false, 'ended']);
    expect(detail.record.outcome).toBe('aborted');
    const again = await api(`/api/code-sessions/${id}/stop`, { method: 'POST' });
    expect(again.status).toBe(409);
    expect(again.body.error).toMatchObject({
      code: 'SESSION_NOT_LIVE',
      hint: 'nothing holds it: it is already released',
    });
    const unknown = await api(`/api/code-sessions/cs_${'A'.repeat(43)}/stop`, { method: 'POST' });
    expect(unknown.status).toBe(404);
    const badId = await api(`/api/code-sessions/..%2f/stop`, { method: 'POST' });
    expect(badId.status).toBe(400);
    // Resumed, it no longer carries the verdict of the run before.
    expect((await api(`/api/code-sessions/${id}/resume`, { method: 'POST' })).status).toBe(200);
    const resumed = (await api(`/api/code-sessions/${id}`)).body.data.record;
    expect(resumed.note).not.toBe('from the page');
  });
});
