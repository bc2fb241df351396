/** The approvals inbox: flow approval steps and persona questions waiting for a person. */
import type { Hono } from 'hono';
import { answerApproval, readInbox } from '../approvals.js';
import { readBody } from '../bodies.js';
import type { ServerContext } from '../context.js';
import { checkedId } from '../ids.js';
import { defined } from '../../util/defined.js';

export function approvalRoutes(app: Hono, ctx: ServerContext): void {
  app.get('/api/approvals', async (c) => c.json({ ok: true, data: { items: await readInbox(ctx.home) } }));

  app.post('/api/approvals/:runId/:key', async (c) =>
    c.json(await answerFromWeb(ctx.home, c.req.param('runId'), c.req.param('key'), c.req.raw)),
  );
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
