/**
 * The Hono application: the security gate, the routes, the envelope for every error, and the
 * web UI's files.
 */
import { Hono } from 'hono';
import type { ServerContext } from './context.js';
import { errorBody, HttpError, statusOf } from './envelope.js';
import { approvalRoutes } from './routes/approvals.js';
import { eventRoutes } from './routes/events.js';
import { flowRoutes } from './routes/flows.js';
import { metaRoutes } from './routes/meta.js';
import { sessionRoutes } from './routes/sessions.js';
import { apiGate, hostCheck, securityHeaders } from './security.js';
import { staticFiles } from './static.js';

export function createApp(ctx: ServerContext): Hono {
  const app = new Hono();
  app.use('*', securityHeaders);
  app.use('*', hostCheck(ctx.hosts));
  const gate = apiGate(ctx.token, ctx.hosts);
  app.use('/api/*', gate);
  app.use('/metrics', gate);
  sessionRoutes(app, ctx);
  flowRoutes(app, ctx);
  approvalRoutes(app, ctx);
  eventRoutes(app, ctx);
  metaRoutes(app, ctx);
  app.all('/api/*', (c) => {
    const error = new HttpError(404, 'SERVER_NO_ROUTE', `no route ${c.req.method} ${new URL(c.req.url).pathname}`, {
      hint: 'see docs/control-plane.md for the routes',
    });
    return c.json(errorBody(error), 404);
  });
  app.get('*', staticFiles(ctx.webRoot));
  app.onError((error, c) => {
    const status = statusOf(error);
    if (status >= 500 && !(error instanceof HttpError))
      ctx.log.warn('serve_route_failed', { path: new URL(c.req.url).pathname, error });
    return c.json(errorBody(error), status as 500);
  });
  return app;
}
