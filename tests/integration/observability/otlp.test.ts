/**
 * OTLP export against a collector stand-in on loopback: the official exporter POSTs the seed's
 * families (JSON over HTTP) to OTEL_EXPORTER_OTLP_ENDPOINT/v1/metrics; families the seed does
 * not declare never leave the process.
 */
import { createServer, type Server } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { OtlpSink, otlpMetricsUrl, processMetrics, SESSION_METRICS } from '../../../engine/observability/index.js';

interface Received {
  path: string;
  body: string;
}

let collector: Server | undefined;
afterEach(async () => {
  await new Promise<void>((resolve) => (collector ? collector.close(() => resolve()) : resolve()));
  collector = undefined;
});

async function startCollector(): Promise<{ base: string; received: Received[] }> {
  const received: Received[] = [];
  collector = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push({ path: req.url ?? '', body: Buffer.concat(chunks).toString('utf8') });
      res.writeHead(200, { 'Content-Type': 'application/json' }).end('{}');
    });
  });
  const server = collector;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const address = server.address();
  return { base: `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`, received };
}

describe('OTLP export', () => {
  it('is off without the endpoint variables, and follows them when set', () => {
    expect(otlpMetricsUrl({})).toBeUndefined();
    expect(otlpMetricsUrl({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318/' })).toBe(
      'http://127.0.0.1:4318/v1/metrics',
    );
    expect(
      otlpMetricsUrl({
        OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318',
        OTEL_EXPORTER_OTLP_METRICS_ENDPOINT: 'http://127.0.0.1:9/m',
      }),
    ).toBe('http://127.0.0.1:9/m');
  });

  it('sends the declared families to the collector on shutdown, and nothing undeclared', async () => {
    const { base, received } = await startCollector();
    const metrics = await processMetrics({ env: { OTEL_EXPORTER_OTLP_ENDPOINT: base } });
    expect(metrics.otlp).toBeInstanceOf(OtlpSink);
    metrics.sink.increment(SESSION_METRICS.started, { backend: 'script' });
    metrics.sink.increment(SESSION_METRICS.started, { backend: 'script' });
    metrics.sink.observe(SESSION_METRICS.settleDurationMs, 1200, { backend: 'script' });
    metrics.sink.increment('made_up_total', { x: '1' });
    metrics.sink.increment(SESSION_METRICS.started, { wrong: 'label' });
    await metrics.close();
    expect(received.length).toBeGreaterThan(0);
    expect(received.every((r) => r.path === '/v1/metrics')).toBe(true);
    const body = received.map((r) => r.body).join('\n');
    expect(body).toContain('"name":"code_session_started_total"');
    expect(body).toContain('"name":"code_session_settle_duration_ms"');
    expect(body).toContain('"key":"backend"');
    expect(body).toContain('"stringValue":"script"');
    expect(body).toContain('"service.name"');
    expect(body).not.toContain('made_up_total');
    expect(body).not.toContain('"wrong"');
    expect(metrics.otlp!.dropped).toBe(2);
  });

  it('a collector that is down breaks nothing: records and shutdown return normally', async () => {
    const metrics = await processMetrics({ env: { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:9' } });
    metrics.sink.increment(SESSION_METRICS.started, { backend: 'script' });
    await expect(metrics.close()).resolves.toBeUndefined();
  });

  it('--metrics-port serves Prometheus text on loopback', async () => {
    const metrics = await processMetrics({ env: {}, metricsPort: 0 });
    metrics.sink.increment(SESSION_METRICS.started, { backend: 'script' });
    expect(metrics.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/metrics$/);
    const text = await (await fetch(metrics.url!)).text();
    expect(text).toContain('code_session_started_total{backend="script"} 1');
    expect((await fetch(metrics.url!.replace('/metrics', '/other'))).status).toBe(404);
    await metrics.close();
  });
});
