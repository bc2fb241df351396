import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { attachToServer, type ServerAttachment } from '../../../engine/server/index.js';
import { createSessionService, silentLog, type SessionService } from '../../../engine/session/index.js';
import { dataOf, SseClient, startTestServer } from '../../helpers/serve.js';
import { tempDir } from '../../helpers/temp.js';

const CHATTY = `
turns:
  - [${Array.from({ length: 40 }, (_, i) => `{ say: "line ${i}" }`).join(', ')}]
  - when: { guidanceContains: "from a person" }
    actions:
      - say: Heard the person.
      - run: { command: "echo fetched" }
      - say: fetched
  - - say: Anything else.
`;

const cleanup: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  while (cleanup.length > 0) await cleanup.pop()!();
});

async function setup() {
  const started = await startTestServer();
  cleanup.push(() => started.server.close());
  const work = await tempDir('neo-serve-work-');
  const script = join(work, 'chatty.yaml');
  await writeFile(script, CHATTY);
  const sse = (path: string, headers: Record<string, string> = {}) => {
    const client = new SseClient(`${started.server.origin}${path}`, {
      authorization: `Bearer ${started.server.token}`,
      ...headers,
    });
    cleanup.push(() => client.close());
    return client;
  };
  return { ...started, work, script, sse };
}

async function startIn(service: SessionService, cwd: string, script: string, maxPosture = 'default') {
  const { sessionId } = (await service.execute(
    { op: 'start', backend: 'script', brief: 'talk', cwd, maxPosture, backendOptions: { script } },
    { scope: 'owner' },
  )) as { sessionId: string };
  return sessionId;
}

/** Every seq 1..last covered once, in order, and the text the file holds for them. */
function coverage(feed: Array<{ seq: number; firstSeq?: number; event: { type: string; text?: string } }>) {
  const seqs: number[] = [];
  let text = '';
  for (const item of feed) {
    for (let s = item.firstSeq ?? item.seq; s <= item.seq; s++) seqs.push(s);
    if (item.event.type === 'text') text += `${item.event.text}\n\n`;
  }
  return { seqs, text };
}

async function fileOf(home: string, sessionId: string) {
  const lines = (await readFile(join(home, 'code-sessions', sessionId, 'events.jsonl'), 'utf8')).trim().split('\n');
  const events = lines.map((l) => JSON.parse(l) as { seq: number; event: { type: string; text?: string } });
  return {
    seqs: events.map((e) => e.seq),
    text: events
      .filter((e) => e.event.type === 'text')
      .map((e) => `${e.event.text}\n\n`)
      .join(''),
    last: events.at(-1)!.seq,
  };
}

describe("a session's own feed (GET /api/code-sessions/:id/events)", () => {
  it('sends the history then live lines, each once and in order, text coalesced, and resumes from Last-Event-ID', async () => {
    const { server, home, work, script, sse, api } = await setup();
    const service = server.context.service;
    const id = await startIn(service, work, script);
    await service.execute({ op: 'read-turn', sessionId: id }, { scope: 'owner' });
    const feed = sse(`/api/code-sessions/${id}/events`);
    await feed.waitFor((e) => JSON.parse(e.data).event.type === 'turn_diff');
    await api(`/api/code-sessions/${id}/guidance`, { json: { text: 'from a person' } });
    await feed.waitFor((e) => JSON.parse(e.data).event.type === 'clarify');
    const items = dataOf(feed.events, 'code_session_event');
    // Forty text lines of one turn arrive as far fewer feed events.
    expect(items.filter((i) => i.event.type === 'text').length).toBeLessThan(5);
    const file = await fileOf(home, id);
    const got = coverage(items);
    expect(got.seqs).toEqual(file.seqs.filter((s) => s <= got.seqs.at(-1)!));
    expect(file.text.startsWith(got.text)).toBe(true);
    expect(feed.events.every((e) => e.id === String(JSON.parse(e.data).seq))).toBe(true);

    // A reconnect with Last-Event-ID gets exactly what follows.
    const cut = items[3]!.seq;
    const resumed = sse(`/api/code-sessions/${id}/events`, { 'last-event-id': String(cut) });
    await resumed.waitFor((e) => JSON.parse(e.data).event.type === 'clarify');
    const again = coverage(dataOf(resumed.events, 'code_session_event'));
    expect(again.seqs[0]).toBe(cut + 1);
    expect(again.seqs).toEqual(file.seqs.filter((s) => s > cut && s <= again.seqs.at(-1)!));
    expect((await api(`/api/code-sessions/${id}/events?afterSeq=x`)).status).toBe(400);
  });
});

describe('the hub feed (GET /api/events)', () => {
  it('publishes code_session_event and code_session_changed, replays on Last-Event-ID, resets an unknown one', async () => {
    const { server, work, script, sse, api } = await setup();
    const service = server.context.service;
    const all = sse('/api/events');
    const onlyChanged = sse('/api/events?topics=code_session_changed');
    await all.waitFor(() => true, 500).catch(() => undefined);
    const id = await startIn(service, work, script);
    await service.execute({ op: 'read-turn', sessionId: id }, { scope: 'owner' });
    const changed = await all.waitFor(
      (e) => e.event === 'code_session_changed' && JSON.parse(e.data).record.status === 'idle',
    );
    expect(JSON.parse(changed.data).record).toMatchObject({ sessionId: id, backendId: 'script', roundsElapsed: 1 });
    await onlyChanged.waitFor((e) => e.event === 'code_session_changed');
    expect(onlyChanged.events.every((e) => e.event === 'code_session_changed')).toBe(true);
    const events = dataOf(all.events, 'code_session_event');
    const covered = coverage(events).seqs;
    expect(covered).toEqual(covered.map((_, i) => i + 1));

    // Replay: everything after an id, in order; an id from another server start gets a reset.
    const middle = all.events[2]!.id!;
    const replay = sse('/api/events', { 'last-event-id': middle });
    await replay.waitFor((e) => e.id === all.events.at(-1)!.id);
    const from = all.events.findIndex((e) => e.id === middle) + 1;
    expect(replay.events.map((e) => e.id)).toEqual(all.events.slice(from).map((e) => e.id));
    const stale = sse('/api/events', { 'last-event-id': 'ffffff-3' });
    await stale.waitFor((e) => e.event === 'reset');
    expect((await api('/api/events?topics=nope')).status).toBe(400);
  });
});

describe('a process attached over the socket', () => {
  it("streams its sessions to the server; a person's guidance, answer and interrupt reach them; metrics are aggregated", async () => {
    const { server, home, work, script, sse, api } = await setup();
    const attachment = (await attachToServer(home, 'test process')) as ServerAttachment;
    expect(attachment).toBeDefined();
    const service = createSessionService({
      home,
      definitions: server.context.definitions(),
      log: silentLog,
      metrics: attachment.metrics,
    });
    attachment.bindSessions(service);
    cleanup.push(async () => {
      await service.close();
      await attachment.close();
    });
    const hub = sse('/api/events?topics=code_session_event');
    const id = await startIn(service, work, script);
    await service.execute({ op: 'read-turn', sessionId: id }, { scope: 'owner' });
    await hub.waitFor((e) => JSON.parse(e.data).sessionId === id && JSON.parse(e.data).event.type === 'turn_complete');
    // The server's own registry does not hold it; the attached process does.
    expect(server.context.service.liveSessionIds()).toEqual([]);
    expect((await api('/api/code-sessions')).body.data.live).toEqual([id]);
    expect((await api(`/api/code-sessions/${id}`)).body.data.live).toBe(true);

    const guided = await api(`/api/code-sessions/${id}/guidance`, { json: { text: 'from a person' } });
    expect(guided.status).toBe(200);
    const question = (await service.execute({ op: 'read-turn', sessionId: id }, { scope: 'owner' })) as {
      kind: string;
      clarificationId: string;
    };
    expect(question.kind).toBe('clarification');
    const answered = await api(`/api/code-sessions/${id}/answer`, {
      json: { clarificationId: question.clarificationId, allow: true },
    });
    expect(answered.status).toBe(200);
    const turn = (await service.execute({ op: 'read-turn', sessionId: id }, { scope: 'owner' })) as { text: string };
    expect(turn.text).toBe('fetched');
    const wrong = await api(`/api/code-sessions/${id}/answer`, { json: { clarificationId: 'nope', allow: true } });
    expect(wrong.status).toBe(409);
    expect((await api(`/api/code-sessions/${id}/interrupt`, { method: 'POST' })).status).toBe(200);

    const metrics = await (
      await fetch(`${server.origin}/metrics`, { headers: { authorization: `Bearer ${server.token}` } })
    ).text();
    expect(metrics).toContain('code_session_started_total{backend="script"} 1');
    expect(metrics).toContain('code_session_clarification_answers_total{allow="true"} 1');

    await service.execute({ op: 'stop', sessionId: id }, { scope: 'owner' });
    await hub.waitFor((e) => JSON.parse(e.data).sessionId === id && JSON.parse(e.data).event.type === 'released');
    const after = await api(`/api/code-sessions/${id}/guidance`, { json: { text: 'too late' } });
    expect(after.status).toBe(409);
    expect(after.body.error?.code).toBe('SESSION_NOT_LIVE');
  });

  it('a process that goes away takes its sessions with it: guidance is then 409', async () => {
    const { server, home, work, script, api } = await setup();
    const attachment = (await attachToServer(home, 'short-lived')) as ServerAttachment;
    const service = createSessionService({ home, definitions: server.context.definitions(), log: silentLog });
    attachment.bindSessions(service);
    cleanup.push(() => service.close());
    const id = await startIn(service, work, script);
    await service.execute({ op: 'read-turn', sessionId: id }, { scope: 'owner' });
    for (let i = 0; i < 50 && !(await api('/api/code-sessions')).body.data.live.includes(id); i++)
      await new Promise((r) => setTimeout(r, 20));
    await attachment.close();
    for (let i = 0; i < 50 && server.context.attach.processes().length > 0; i++)
      await new Promise((r) => setTimeout(r, 20));
    const response = await api(`/api/code-sessions/${id}/guidance`, { json: { text: 'hello' } });
    expect(response.status).toBe(409);
  });

  it('no server: attaching is a no-op', async () => {
    expect(await attachToServer(await tempDir('neo-no-server-'), 'x')).toBeUndefined();
  });
});
