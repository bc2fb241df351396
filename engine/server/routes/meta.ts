/** The server's own status and the Prometheus exposition of the seed 004 §8 metric families. */
import type { Hono } from 'hono';
import type { ServerContext } from '../context.js';
import { HttpError } from '../envelope.js';

export function metaRoutes(app: Hono, ctx: ServerContext): void {
  app.get('/api/status', (c) =>
    c.json({
      ok: true,
      data: {
        version: ctx.version,
        pid: process.pid,
        startedAt: ctx.startedAt,
        liveSessions: ctx.service.liveSessionIds(),
        processes: ctx.attach.processes().map((p) => ({
          pid: p.pid,
          label: p.label,
          sessions: [...p.sessions],
          runs: [...p.runs],
        })),
        sseClients: ctx.hub.subscribers,
        memory: memory(),
      },
    }),
  );

  app.get('/metrics', async (c) => {
    if (ctx.metrics === undefined) throw new HttpError(503, 'SERVER_NO_METRICS', 'this server keeps no metrics');
    c.header('Content-Type', ctx.metrics.contentType);
    return c.body(await ctx.metrics.text());
  });
}

function memory(): { rssMb: number; heapUsedMb: number } {
  const usage = process.memoryUsage();
  const mb = (bytes: number) => Math.round((bytes / 1024 / 1024) * 10) / 10;
  return { rssMb: mb(usage.rss), heapUsedMb: mb(usage.heapUsed) };
}
