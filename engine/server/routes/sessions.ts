/**
 * Code-session routes (seed 004 §5): the list, one session with its events from a cursor and
 * its terminal-attach command, a person's guidance, answer and interrupt — delivered to the
 * session wherever it runs (this process, or an attached flow or persona process) — the
 * supervised resume, and the session's own live feed.
 */
import type { Hono } from 'hono';
import { SessionRejection, type CodeSessionRecord } from '../../session/index.js';
import { readBody } from '../bodies.js';
import { TEXT_COALESCE_MS } from '../session-bridge.js';
import type { ServerContext } from '../context.js';
import { HttpError } from '../envelope.js';
import { renderExternalAttach } from '../external-attach.js';
import { checkedId } from '../ids.js';
import { runPersonCommand, type PersonCommand } from '../person-ops.js';
import { holderOf, livenessOf, shownRecord } from '../liveness.js';
import { SessionFeed } from '../session-feed.js';
import { sseResponse } from '../sse.js';
import { intParam } from './query.js';
import { defined } from '../../util/defined.js';

/** Most events one read returns. */
const MAX_EVENTS = 10_000;

export function sessionRoutes(app: Hono, ctx: ServerContext): void {
  const { service } = ctx;

  const recordOr404 = async (sessionId: string): Promise<CodeSessionRecord> => {
    const record = await service.store.get(sessionId);
    if (record === null) throw new SessionRejection('SESSION_NOT_FOUND', `no code session \`${sessionId}\``);
    return record;
  };

  /**
   * Runs a person's command on the session, in whichever process holds it. Guidance, answers and
   * interrupts need a live session; stop also takes one that ended but is still held (it releases it).
   */
  const command = async (command: PersonCommand): Promise<unknown> => {
    const { sessionId } = command;
    const record = await recordOr404(sessionId);
    const liveness = livenessOf(ctx, sessionId, record);
    if (liveness === 'none' || (liveness === 'held' && command.type !== 'stop'))
      throw new SessionRejection(
        'SESSION_NOT_LIVE',
        liveness === 'held'
          ? `code session \`${sessionId}\` has ended (${record.status}); it is not live`
          : `code session \`${sessionId}\` is not live`,
        {
          hint:
            command.type === 'stop' ? 'nothing holds it: it is already released' : 'resume it first (POST …/resume)',
        },
      );
    if (holderOf(ctx, sessionId) === 'here') return runPersonCommand(service, command);
    return ctx.attach.ownerOfSession(sessionId)!.send(command);
  };

  app.get('/api/code-sessions', async (c) => {
    const records = await service.store.list();
    const liveness = new Map(records.map((r) => [r.sessionId, livenessOf(ctx, r.sessionId, r)]));
    const sessions = records.map((r) => shownRecord(r, liveness.get(r.sessionId)!));
    const live = sessions.filter((s) => liveness.get(s.sessionId) === 'live').map((s) => s.sessionId);
    const held = sessions.filter((s) => liveness.get(s.sessionId) === 'held').map((s) => s.sessionId);
    return c.json({ ok: true, data: { sessions, live, held } });
  });

  app.get('/api/code-sessions/:id', async (c) => {
    const sessionId = checkedId('session', c.req.param('id'));
    const afterSeq = intParam(c.req.query('afterSeq'), 'afterSeq', 0, Number.MAX_SAFE_INTEGER);
    const limit = intParam(c.req.query('limit'), 'limit', MAX_EVENTS, MAX_EVENTS);
    const stored = await recordOr404(sessionId);
    const liveness = livenessOf(ctx, sessionId, stored);
    const record = shownRecord(stored, liveness);
    const events = (await service.store.readEvents(sessionId, { afterSeq, limit: limit + 1 })) ?? [];
    const more = events.length > limit;
    const attach = renderExternalAttach(
      ctx.definitions().get('backend', record.backendId)?.data.externalAttach,
      record,
    );
    return c.json({
      ok: true,
      data: {
        record,
        events: events.slice(0, limit),
        more,
        live: liveness === 'live',
        held: liveness === 'held',
        ...(attach.available
          ? { externalAttach: { command: attach.command, ...defined({ note: attach.note }) } }
          : { externalAttachUnavailable: attach.reason }),
      },
    });
  });

  app.post('/api/code-sessions/:id/guidance', async (c) => {
    const sessionId = checkedId('session', c.req.param('id'));
    const body = await readBody(c.req.raw, 'guidance');
    await command({ type: 'guide', sessionId, text: body.text });
    return c.json({ ok: true, data: { delivered: true } });
  });

  app.post('/api/code-sessions/:id/answer', async (c) => {
    const sessionId = checkedId('session', c.req.param('id'));
    const body = await readBody(c.req.raw, 'answer');
    const result = await command({
      type: 'answer',
      sessionId,
      clarificationId: body.clarificationId,
      allow: body.allow,
      ...defined({ reason: body.reason, note: body.note }),
    });
    return c.json({ ok: true, data: result });
  });

  app.post('/api/code-sessions/:id/interrupt', async (c) => {
    const sessionId = checkedId('session', c.req.param('id'));
    await readBody(c.req.raw, 'empty');
    const result = await command({ type: 'interrupt', sessionId });
    return c.json({ ok: true, data: result });
  });

  app.post('/api/code-sessions/:id/stop', async (c) => {
    const sessionId = checkedId('session', c.req.param('id'));
    const body = await readBody(c.req.raw, 'stop');
    const result = await command({ type: 'stop', sessionId, ...defined({ outcome: body.outcome, note: body.note }) });
    return c.json({ ok: true, data: result });
  });

  app.post('/api/code-sessions/:id/resume', async (c) => {
    const sessionId = checkedId('session', c.req.param('id'));
    await readBody(c.req.raw, 'empty');
    if (ctx.resume === undefined)
      throw new HttpError(503, 'SERVER_NO_RESUME', 'this server has no resume dispatcher', {
        hint: 'resume from a terminal with `neo persona run`, or run `neo serve`',
      });
    const { record, scope } = await ctx.resume.resume(sessionId);
    return c.json({ ok: true, data: { record, scope } });
  });

  // The session's live feed: history from events.jsonl after the cursor (Last-Event-ID or
  // ?afterSeq; the seq is the event id), then live events — text coalesced, each line once.
  app.get('/api/code-sessions/:id/events', async (c) => {
    const sessionId = checkedId('session', c.req.param('id'));
    const cursor = c.req.header('last-event-id') ?? c.req.query('afterSeq');
    const afterSeq = intParam(cursor, 'Last-Event-ID', 0, Number.MAX_SAFE_INTEGER);
    await recordOr404(sessionId);
    return sseResponse(
      c,
      (send) => {
        const feed = new SessionFeed({
          sessionId,
          afterSeq,
          coalesceMs: TEXT_COALESCE_MS,
          read: async (after) => (await service.store.readEvents(sessionId, { afterSeq: after })) ?? [],
          emit: (event) => send({ id: String(event.seq), event: 'code_session_event', data: JSON.stringify(event) }),
        });
        // Subscribed at once: lines that arrive while the history is read wait in the feed.
        const stop = ctx.bridge.subscribeRaw((live) => feed.push(live));
        return () => {
          stop();
          feed.close();
        };
      },
      { heartbeatMs: ctx.heartbeatMs, maxQueue: ctx.maxQueue },
    );
  });
}
