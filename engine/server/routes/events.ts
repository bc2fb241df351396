/**
 * `GET /api/events`: the hub as Server-Sent Events. `?topics=` picks topics (default all),
 * `?sessionId=` / `?runId=` narrow to one session or run. A reconnect with `Last-Event-ID` is
 * replayed what it missed from the hub's ring; when that is no longer possible (another server
 * start, or too far behind) it gets one `reset` event and should reload what it shows.
 */
import type { Hono } from 'hono';
import type { ServerContext } from '../context.js';
import { HttpError } from '../envelope.js';
import { TOPICS, type HubEvent, type Topic } from '../hub.js';
import { checkedId } from '../ids.js';
import { sseResponse } from '../sse.js';

export function eventRoutes(app: Hono, ctx: ServerContext): void {
  app.get('/api/events', (c) => {
    const topics = parseTopics(c.req.query('topics'));
    const sessionId = c.req.query('sessionId');
    const runId = c.req.query('runId');
    if (sessionId !== undefined) checkedId('session', sessionId);
    if (runId !== undefined) checkedId('run', runId);
    const wanted = (event: HubEvent): boolean => {
      if (!topics.has(event.topic)) return false;
      const data = event.data as { sessionId?: string; runId?: string; record?: { sessionId?: string } };
      if (sessionId !== undefined && (data.sessionId ?? data.record?.sessionId) !== sessionId) return false;
      if (runId !== undefined && data.runId !== runId) return false;
      return true;
    };
    const lastEventId = c.req.header('last-event-id') ?? c.req.query('lastEventId');
    return sseResponse(
      c,
      (send) => {
        const forward = (event: HubEvent) => {
          if (wanted(event)) send({ id: event.id, event: event.topic, data: JSON.stringify(event.data) });
        };
        if (lastEventId !== undefined) {
          const missed = ctx.hub.since(lastEventId);
          if (missed === undefined) send({ event: 'reset', data: JSON.stringify({ epoch: ctx.hub.epoch }) });
          else missed.forEach(forward);
        }
        // Publishing is synchronous, so nothing falls between the replay above and this.
        return ctx.hub.subscribe(forward);
      },
      { heartbeatMs: ctx.heartbeatMs, maxQueue: ctx.maxQueue },
    );
  });
}

function parseTopics(value: string | undefined): Set<Topic> {
  if (value === undefined || value === '') return new Set(TOPICS);
  const out = new Set<Topic>();
  for (const name of value.split(',')) {
    if (!(TOPICS as readonly string[]).includes(name))
      throw new HttpError(400, 'SERVER_BAD_QUERY', `unknown topic \`${name.slice(0, 60)}\``, {
        hint: `topics: ${TOPICS.join(', ')}`,
      });
    out.add(name as Topic);
  }
  return out;
}
