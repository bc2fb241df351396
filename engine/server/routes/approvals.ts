/** The approvals inbox: flow approval steps and persona questions waiting for a person. */
import type { Hono } from 'hono';
import { answerApproval, readInbox } from '../approvals.js';
import { readBody } from '../bodies.js';
import type { ServerContext } from '../context.js';
import { checkedId } from '../ids.js';
import { defined } from '../../util/defined.js';

export function approvalRoutes(app: Hono, ctx: ServerContext): void {
  app.get('/api/approvals', async (c) => c.json({ ok: true, data: { items: await readInbox(ctx.home) } }));

  app.post('/api/approvals/:runId/:key', async (c) => {
    const runId = checkedId('run', c.req.param('runId'));
    const key = checkedId('approval', c.req.param('key'));
    const body = await readBody(c.req.raw, 'decision');
    const answered = await answerApproval({
      home: ctx.home,
      runId,
      key,
      decision: body.decision,
      ...defined({ reason: body.reason }),
      by: 'web',
    });
    return c.json({ ok: true, data: answered });
  });
}
