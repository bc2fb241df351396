import { rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createApp } from '../../../engine/server/app.js';
import type { ServerContext } from '../../../engine/server/context.js';
import { EventHub } from '../../../engine/server/hub.js';
import { allowedHosts } from '../../../engine/server/hosts.js';
import type { RunningServer } from '../../../engine/server/index.js';
import { silentLog } from '../../../engine/session/index.js';
import { rawRequest, startTestServer } from '../../helpers/serve.js';
import { tempDir } from '../../helpers/temp.js';
import { defined } from '../../../engine/util/defined.js';

const SCRIPT = `
turns:
  - - say: First turn.
  - when: { guidanceContains: "from a person" }
    actions:
      - say: Heard the person.
  - - say: Anything else.
`;

const servers: RunningServer[] = [];
afterEach(async () => {
  while (servers.length > 0) await servers.pop()!.close();
});

async function setup() {
  const started = await startTestServer();
  servers.push(started.server);
  const work = await tempDir('neo-serve-work-');
  const script = join(work, 'script.yaml');
  await writeFile(script, SCRIPT);
  const service = started.server.context.service;
  const start = async (file = script) => {
    const result = (await service.execute(
      { op: 'start', backend: 'script', brief: 'say things', cwd: work, backendOptions: { script: file } },
      { scope: 'owner' },
    )) as { sessionId: string };
    const turn = (await service.execute({ op: 'read-turn', sessionId: result.sessionId }, { scope: 'owner' })) as {
      kind: string;
    };
    expect(turn.kind).toBe('turn_complete');
    return result.sessionId;
  };
  const stop = (sessionId: string) => service.execute({ op: 'stop', sessionId }, { scope: 'owner' });
  return { ...started, work, script, start, stop, service };
}

const UNKNOWN = `cs_${'A'.repeat(43)}`;

describe('auth, host and origin', () => {
  it('refuses a missing or wrong token (401 with WWW-Authenticate) and answers the right one', async () => {
    const { api } = await setup();
    const missing = await api('/api/code-sessions', { token: null });
    expect(missing.status).toBe(401);
    expect(missing.body.error?.code).toBe('SERVER_NO_TOKEN');
    expect(missing.headers.get('www-authenticate')).toBe('Bearer realm="neo"');
    const wrong = await api('/api/code-sessions', { token: 'x'.repeat(43) });
    expect(wrong.status).toBe(401);
    expect(wrong.body.error?.code).toBe('SERVER_BAD_TOKEN');
    const basic = await api('/api/code-sessions', { token: null, headers: { authorization: 'Basic abc' } });
    expect(basic.status).toBe(401);
    const right = await api('/api/code-sessions');
    expect(right.status).toBe(200);
    expect(right.body).toEqual({ ok: true, data: { sessions: [], live: [], held: [] } });
    // /metrics is behind the same gate.
    expect((await api('/metrics', { token: null })).status).toBe(401);
  });

  it('refuses another Host (DNS rebinding) on the API and on the UI, and a foreign Origin', async () => {
    const { api, server } = await setup();
    const auth = { authorization: `Bearer ${server.token}` };
    const rebinding = await rawRequest(server, '/api/code-sessions', {
      ...auth,
      host: `attacker.example:${server.port}`,
    });
    expect(rebinding.status).toBe(403);
    expect(JSON.parse(rebinding.body).error.code).toBe('SERVER_BAD_HOST');
    expect((await rawRequest(server, '/', { host: 'attacker.example' })).status).toBe(403);
    const localhost = await rawRequest(server, '/api/code-sessions', { ...auth, host: `localhost:${server.port}` });
    expect(localhost.status).toBe(200);
    const foreign = await api('/api/code-sessions', { headers: { origin: 'http://attacker.example' } });
    expect(foreign.status).toBe(403);
    expect(foreign.body.error?.code).toBe('SERVER_BAD_ORIGIN');
    expect((await api('/api/code-sessions', { headers: { origin: 'null' } })).status).toBe(403);
    const own = await api('/api/code-sessions', { headers: { origin: server.origin } });
    expect(own.status).toBe(200);
    // No CORS header is ever sent.
    expect(own.headers.get('access-control-allow-origin')).toBeNull();
    const preflight = await api('/api/code-sessions', {
      method: 'OPTIONS',
      token: null,
      headers: { origin: 'http://x.example' },
    });
    expect(preflight.status).toBe(403);
    expect(preflight.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('serves the UI without a token, with a strict CSP, and index.html for UI routes', async () => {
    const { server } = await setup();
    const page = await fetch(`${server.origin}/sessions/cs_x`);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('<title>neo</title>');
    expect(page.headers.get('content-security-policy')).toContain("default-src 'none'");
    expect(page.headers.get('x-frame-options')).toBe('DENY');
    const asset = await fetch(`${server.origin}/assets/app.js`);
    expect(asset.headers.get('content-type')).toContain('text/javascript');
  });
});

describe('ids and paths', () => {
  it('refuses ids that are not exactly an id, and never reaches outside the store or the UI folder', async () => {
    const { api, server, home } = await setup();
    await writeFile(join(home, 'secret.txt'), 'top secret');
    for (const path of [
      '/api/code-sessions/..%2F..%2Fserver.token',
      '/api/code-sessions/cs_short',
      `/api/code-sessions/${UNKNOWN}%00`,
      '/api/flows/runs/..%2Fserver.token',
      '/api/flows/runs/20260101-000000-abcdef%2F..%2F..',
      '/api/approvals/..%2F..%2Fsecret/key',
      '/api/approvals/20260101-000000-abcdef/..%2F..%2Fsecret',
    ]) {
      const response = await api(path, path.startsWith('/api/approvals') ? { json: { decision: 'approve' } } : {});
      expect({ path, status: response.status }).toEqual({ path, status: 400 });
      expect(response.body.error?.code).toBe('SERVER_BAD_ID');
    }
    // A client normalizes a literal `..` segment away before sending; the route then does not exist.
    expect((await api('/api/code-sessions/%2e%2e')).status).toBe(404);
    const host = { host: `127.0.0.1:${server.port}` };
    for (const path of [
      '/..%2Fsecret.txt',
      '/assets/..%2F..%2Fsecret.txt',
      '/%2e%2e/secret.txt',
      '/../secret.txt',
      '/a%5c..%5csecret.txt',
      '/x%00.js',
    ]) {
      const response = await rawRequest(server, path, host);
      expect({ path, refused: response.status === 400 || response.status === 404 }).toEqual({ path, refused: true });
      expect(response.body).not.toContain('top secret');
    }
    for (const path of ['/api/code-sessions/../../server.token', '/api/flows/runs/../../server.token']) {
      const response = await rawRequest(server, path, { ...host, authorization: `Bearer ${server.token}` });
      expect(response.status).not.toBe(200);
      expect(response.body).not.toContain(server.token);
    }
  });

  it('answers 404 with the envelope for an unknown route or id', async () => {
    const { api } = await setup();
    const route = await api('/api/nothing-here');
    expect(route.status).toBe(404);
    expect(route.body.error?.code).toBe('SERVER_NO_ROUTE');
    const session = await api(`/api/code-sessions/${UNKNOWN}`);
    expect(session.status).toBe(404);
    expect(session.body.error?.code).toBe('SESSION_NOT_FOUND');
    const run = await api('/api/flows/runs/20260101-000000-abcdef');
    expect(run.status).toBe(404);
    expect(run.body.error?.code).toBe('FLOW_RUN_NOT_FOUND');
  });
});

describe('code-session routes (seed 004 §5)', () => {
  it('lists sessions and reads one with its events from a cursor', async () => {
    const { api, start } = await setup();
    const id = await start();
    const list = await api('/api/code-sessions');
    expect(list.status).toBe(200);
    expect(list.body.data.sessions.map((s: { sessionId: string }) => s.sessionId)).toEqual([id]);
    expect(list.body.data.live).toEqual([id]);
    const all = await api(`/api/code-sessions/${id}`);
    expect(all.status).toBe(200);
    const seqs = all.body.data.events.map((e: { seq: number }) => e.seq);
    expect(seqs[0]).toBe(1);
    expect(seqs).toEqual(seqs.map((_: number, i: number) => i + 1));
    expect(all.body.data.live).toBe(true);
    // The script backend has no interactive resume command.
    expect(all.body.data.externalAttach).toBeUndefined();
    expect(all.body.data.externalAttachUnavailable).toBe('the backend has no interactive resume command');
    const page = await api(`/api/code-sessions/${id}?afterSeq=1&limit=2`);
    expect(page.body.data.events.map((e: { seq: number }) => e.seq)).toEqual([2, 3]);
    expect(page.body.data.more).toBe(true);
    const bad = await api(`/api/code-sessions/${id}?afterSeq=-1`);
    expect(bad.status).toBe(400);
    expect(bad.body.error?.code).toBe('SERVER_BAD_QUERY');
  });

  it("renders the terminal-attach command from the backend's descriptor, or says why it cannot", async () => {
    const { api, service } = await setup();
    const record = (sessionId: string, backendId: string, cwd: string, externalSessionId?: string) =>
      service.store.createRecord({
        sessionId,
        backendId,
        cwd,
        maxPosture: 'acceptEdits',
        taskBrief: 'b',
        taskTags: [],
        status: 'ended',
        createdAt: '2026-01-01T00:00:00.000Z',
        updatedAt: '2026-01-01T00:00:00.000Z',
        roundsElapsed: 1,
        runs: [
          {
            startedAt: '2026-01-01T00:00:00.000Z',
            ownerScopeId: 'owner',
            ...defined({ externalSessionId }),
          },
        ],
        version: 1,
      });
    const claude = `cs_${'c'.repeat(43)}`;
    await record(claude, 'claude-code', '/work/my repo', 'f3a1-uuid');
    const shown = (await api(`/api/code-sessions/${claude}`)).body.data;
    expect(shown.externalAttach).toEqual({
      command: 'claude --resume f3a1-uuid',
      note: expect.stringContaining('Attach only after neo has stopped driving the session'),
    });
    const opencode = `cs_${'o'.repeat(43)}`;
    await record(opencode, 'opencode', '/work/my repo', 'ses_1');
    expect((await api(`/api/code-sessions/${opencode}`)).body.data.externalAttach.command).toBe(
      "opencode '/work/my repo' --session ses_1",
    );
    const noCwd = `cs_${'n'.repeat(43)}`;
    await record(noCwd, 'opencode', '', 'ses_2');
    const refused = (await api(`/api/code-sessions/${noCwd}`)).body.data;
    expect(refused.externalAttach).toBeUndefined();
    expect(refused.externalAttachUnavailable).toBe(
      'the command needs the working directory, which was never recorded for this session',
    );
    const noId = `cs_${'i'.repeat(43)}`;
    await record(noId, 'codex', '/work');
    expect((await api(`/api/code-sessions/${noId}`)).body.data.externalAttachUnavailable).toBe(
      'no run recorded the backend session id',
    );
  });

  it('guidance: 200 to a live session (the agent acts on it), 400 empty, 404 unknown, 409 not live', async () => {
    const { api, start, stop, service } = await setup();
    const id = await start();
    const ok = await api(`/api/code-sessions/${id}/guidance`, { json: { text: 'a note from a person' } });
    expect(ok.status).toBe(200);
    expect(ok.body).toEqual({ ok: true, data: { delivered: true } });
    const turn = (await service.execute({ op: 'read-turn', sessionId: id }, { scope: 'owner' })) as { text: string };
    expect(turn.text).toBe('Heard the person.');
    const events = (await api(`/api/code-sessions/${id}`)).body.data.events as Array<{
      event: { type: string; source?: string; text?: string };
    }>;
    expect(events.find((e) => e.event.type === 'guidance')?.event).toEqual({
      type: 'guidance',
      source: 'user',
      text: 'a note from a person',
    });
    for (const text of ['', '   ']) {
      const empty = await api(`/api/code-sessions/${id}/guidance`, { json: { text } });
      expect(empty.status).toBe(400);
      expect(empty.body.error?.code).toBe('SERVER_BAD_BODY');
    }
    expect((await api(`/api/code-sessions/${id}/guidance`, { json: {} })).status).toBe(400);
    expect((await api(`/api/code-sessions/${id}/guidance`, { json: { text: 'x', extra: 1 } })).status).toBe(400);
    const unknown = await api(`/api/code-sessions/${UNKNOWN}/guidance`, { json: { text: 'hello' } });
    expect(unknown.status).toBe(404);
    expect(unknown.body.error?.code).toBe('SESSION_NOT_FOUND');
    await stop(id);
    const gone = await api(`/api/code-sessions/${id}/guidance`, { json: { text: 'hello' } });
    expect(gone.status).toBe(409);
    expect(gone.body.error?.code).toBe('SESSION_NOT_LIVE');
  });

  it('refuses bodies that are too big, not JSON, or not declared JSON', async () => {
    const { api, start } = await setup();
    const id = await start();
    const big = await api(`/api/code-sessions/${id}/guidance`, { json: { text: 'x'.repeat(70 * 1024) } });
    expect(big.status).toBe(413);
    expect(big.body.error?.code).toBe('SERVER_BODY_TOO_LARGE');
    // A chunked body with no Content-Length is cut off while it streams.
    const stream = new ReadableStream({
      start(controller) {
        for (let i = 0; i < 80; i++) controller.enqueue(new TextEncoder().encode('x'.repeat(1024)));
        controller.close();
      },
    });
    const chunked = await fetch(`${(servers.at(-1) as RunningServer).origin}/api/code-sessions/${id}/guidance`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${(servers.at(-1) as RunningServer).token}`,
        'content-type': 'application/json',
      },
      body: stream,
      duplex: 'half',
    } as RequestInit);
    expect(chunked.status).toBe(413);
    const notJson = await api(`/api/code-sessions/${id}/guidance`, {
      body: '{"text": ',
      headers: { 'content-type': 'application/json' },
    });
    expect(notJson.status).toBe(400);
    expect(notJson.body.error?.code).toBe('SERVER_BAD_JSON');
    const form = await api(`/api/code-sessions/${id}/guidance`, {
      body: 'text=hi',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(form.status).toBe(415);
    expect(form.body.error?.code).toBe('SERVER_UNSUPPORTED_MEDIA_TYPE');
  });

  it('resume: 409 while live, then adopts the record (same id, gapless seq, one run appended); 404 unknown', async () => {
    const { api, start, stop, work } = await setup();
    // The default driver verifies with `npm test`: make it pass.
    await writeFile(join(work, 'package.json'), JSON.stringify({ scripts: { test: 'node -e 0' } }));
    const id = await start();
    const live = await api(`/api/code-sessions/${id}/resume`, { method: 'POST' });
    expect(live.status).toBe(409);
    expect(live.body.error?.code).toBe('SESSION_ALREADY_LIVE');
    await stop(id);
    const before = (await api(`/api/code-sessions/${id}`)).body.data;
    const lastSeq = before.events.at(-1).seq as number;
    expect(before.record.runs).toHaveLength(1);
    const resumed = await api(`/api/code-sessions/${id}/resume`, { method: 'POST' });
    expect(resumed.status).toBe(200);
    expect(resumed.body.data.record.sessionId).toBe(id);
    expect(resumed.body.data.scope).toMatch(/^code-resume-[0-9a-f]{12}$/);
    const after = (await api(`/api/code-sessions/${id}`)).body.data;
    expect(after.record.runs).toHaveLength(2);
    expect(after.record.runs[1].ownerScopeId).toBe(resumed.body.data.scope);
    const adopted = after.events.find((e: { event: { type: string } }) => e.event.type === 'adopted');
    expect(adopted.seq).toBe(lastSeq + 1);
    const seqs = after.events.map((e: { seq: number }) => e.seq);
    expect(seqs).toEqual(seqs.map((_: number, i: number) => i + 1));
    expect((await api(`/api/code-sessions/${UNKNOWN}/resume`, { method: 'POST' })).status).toBe(404);
  });

  it('resume: 500 with the real reason when the dispatch cannot start, and the record is untouched', async () => {
    const { api, start, stop, work } = await setup();
    const script = join(work, 'gone.yaml');
    await writeFile(script, SCRIPT);
    const id = await start(script);
    await stop(id);
    await rm(script);
    const before = (await api(`/api/code-sessions/${id}`)).body.data.record;
    const failed = await api(`/api/code-sessions/${id}/resume`, { method: 'POST' });
    expect(failed.status).toBe(500);
    expect(failed.body.error?.code).toBe('SERVER_RESUME_FAILED');
    expect(failed.body.error?.message).toContain('gone.yaml');
    const after = (await api(`/api/code-sessions/${id}`)).body.data.record;
    expect(after.runs).toEqual(before.runs);
    expect(after.status).toBe(before.status);
  });

  it('resume: 503 when no resume dispatcher is wired', async () => {
    const { server } = await setup();
    const context: ServerContext = { ...server.context, hosts: allowedHosts('127.0.0.1', 1), hub: new EventHub() };
    delete context.resume;
    const app = createApp(context);
    const response = await app.request(`/api/code-sessions/${UNKNOWN}/resume`, {
      method: 'POST',
      headers: { host: '127.0.0.1:1', authorization: `Bearer ${server.token}` },
    });
    expect(response.status).toBe(503);
    expect(((await response.json()) as { error: { code: string } }).error.code).toBe('SERVER_NO_RESUME');
    void silentLog;
  });

  it('answer and interrupt reach a live session through the op path', async () => {
    const { api, service, work } = await setup();
    const asking = join(work, 'ask.yaml');
    await writeFile(asking, 'turns:\n  - - run: { command: "echo fetched" }\n    - say: after the command\n');
    const { sessionId } = (await service.execute(
      {
        op: 'start',
        backend: 'script',
        brief: 'b',
        cwd: work,
        maxPosture: 'default',
        backendOptions: { script: asking },
      },
      { scope: 'owner' },
    )) as { sessionId: string };
    const question = (await service.execute({ op: 'read-turn', sessionId }, { scope: 'owner' })) as {
      kind: string;
      clarificationId: string;
    };
    expect(question.kind).toBe('clarification');
    const wrong = await api(`/api/code-sessions/${sessionId}/answer`, {
      json: { clarificationId: 'nope', allow: true },
    });
    expect(wrong.status).toBe(409);
    expect(wrong.body.error?.code).toBe('SESSION_UNKNOWN_CLARIFICATION');
    const answered = await api(`/api/code-sessions/${sessionId}/answer`, {
      json: { clarificationId: question.clarificationId, allow: false, reason: 'stay offline' },
    });
    expect(answered.status).toBe(200);
    expect(answered.body.data.clarification).toMatchObject({
      allow: false,
      reason: 'stay offline',
      toolName: 'run',
    });
    const turn = (await service.execute({ op: 'read-turn', sessionId }, { scope: 'owner' })) as { text: string };
    expect(turn.text).toBe('after the command');
    const interrupted = await api(`/api/code-sessions/${sessionId}/interrupt`, { method: 'POST' });
    expect(interrupted.status).toBe(200);
  });
});

describe('metrics', () => {
  it('exposes the seed 004 §8 families with what the server recorded', async () => {
    const { api, start, server } = await setup();
    await start();
    const response = await fetch(`${server.origin}/metrics`, { headers: { authorization: `Bearer ${server.token}` } });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toContain('text/plain');
    const text = await response.text();
    expect(text).toContain('code_session_started_total{backend="script"} 1');
    expect(text).toContain('code_session_ops_total{op="start",outcome="ok"} 1');
    expect(text).toContain('code_session_read_turn_total{kind="turn_complete"} 1');
    for (const family of [
      'code_specialist_dispatched_total',
      'code_session_settled_total',
      'code_session_settle_duration_ms',
    ])
      expect(text).toContain(`# TYPE ${family}`);
    void api;
  });
});
