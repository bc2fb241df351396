/** The approvals inbox: flow approval steps and persona questions waiting for a person. */
import type { Hono } from 'hono';
import { answerApproval, readInbox } from '../approvals.js';
import { answerCapability, CAPABILITY_INBOX_RUN } from '../capability-approvals.js';
import { readBody } from '../bodies.js';
import type { ServerContext } from '../context.js';
import { checkedId } from '../ids.js';
import { livenessOf } from '../liveness.js';
import { defined } from '../../util/defined.js';

export function approvalRoutes(app: Hono, ctx: ServerContext): void {
  // What needs a person: approvals and questions, and every live session blocked on a permission question.
  app.get('/api/approvals', async (c) => {
    const records = await ctx.service.store.list();
    const sessions = records
      .filter((r) => r.state === 'awaitingAnswer' && livenessOf(ctx, r.sessionId, r) === 'live')
      .map((r) => ({ sessionId: r.sessionId, taskBrief: r.taskBrief, backendId: r.backendId, updatedAt: r.updatedAt }));
    return c.json({ ok: true, data: { items: await readInbox(ctx.home), sessions } });
  });

  app.post('/api/approvals/:runId/:key', async (c) => {
    if (c.req.param('runId') === CAPABILITY_INBOX_RUN) {
      const body = await readBody(c.req.raw, 'decision');
      const answered = await answerCapability({
        home: ctx.home,
        set: ctx.definitions(),
        id: c.req.param('key'),
        decision: body.decision,
        by: 'web',
      });
      return c.json({ ok: true, data: answered });
    }
    return c.json(await answerFromWeb(ctx.home, c.req.param('runId'), c.req.param('key'), c.req.raw));
  });
}

/** Answers approval `key` of run `runId` with the request's `{decision, reason?}`, as the web UI (both routes). */
export async function answerFromWeb(home: string, runId: string, key: string, request: Request) {
  const ids = { runId: checkedId('run', runId), key: checkedId('approval', key) };
  const body = await readBody(request, 'decision');
  const answered = await answerApproval({
    home,
    ...ids,
    decision: body.decision,
    ...defined({ reason: body.reason }),
    by: 'web',
  });
  return { ok: true, data: answered } as const;
}
