/**
 * The metrics of one process that runs sessions (a flow run, a persona run, the daemon): every
 * sink that applies, behind one MetricsSink — the server it is attached to (forwarding), a
 * Prometheus endpoint of its own on 127.0.0.1 (`--metrics-port`, for long runs without a
 * server), and OTLP export when OTEL_EXPORTER_OTLP_ENDPOINT is set. None of them: the no-op sink.
 */
import { createServer, type Server } from 'node:http';
import { noopMetrics, teeMetrics, type MetricsSink } from './metrics-sink.js';
import { OtlpSink, otlpMetricsUrl } from './otlp.js';
import { PrometheusSink } from './prometheus.js';
import { defined } from '../util/defined.js';

export interface ProcessMetrics {
  sink: MetricsSink;
  /** The /metrics URL when `metricsPort` was given. */
  url?: string;
  otlp?: OtlpSink;
  /** Exports what is pending (OTLP) and stops the endpoint; never throws. */
  close(): Promise<void>;
}

export async function processMetrics(options: {
  env: NodeJS.ProcessEnv;
  /** Serve Prometheus text on this port (0: any free one). */
  metricsPort?: number;
  /** A sink that already exists (the attached server's). */
  forward?: MetricsSink;
  serviceName?: string;
}): Promise<ProcessMetrics> {
  const url = otlpMetricsUrl(options.env);
  const otlp = url === undefined ? undefined : new OtlpSink({ url, serviceName: options.serviceName ?? 'neo' });
  let prometheus: PrometheusSink | undefined;
  let server: Server | undefined;
  let endpoint: string | undefined;
  if (options.metricsPort !== undefined) {
    const sink = new PrometheusSink();
    prometheus = sink;
    server = createServer((req, res) => {
      if (req.method !== 'GET' || (req.url ?? '').split('?')[0] !== '/metrics') {
        res.writeHead(404).end();
        return;
      }
      sink.text().then(
        (text) => res.writeHead(200, { 'Content-Type': sink.contentType }).end(text),
        () => res.writeHead(500).end(),
      );
    });
    const listening = server;
    await new Promise<void>((resolve, reject) => {
      listening.once('error', reject);
      listening.listen(options.metricsPort, '127.0.0.1', () => resolve());
    });
    server.unref();
    const address = server.address();
    endpoint = `http://127.0.0.1:${typeof address === 'object' && address !== null ? address.port : options.metricsPort}/metrics`;
  }
  const sink = teeMetrics(options.forward, prometheus, otlp);
  return {
    sink: sink === noopMetrics ? noopMetrics : sink,
    ...defined({ url: endpoint, otlp }),
    async close() {
      await otlp?.shutdown();
      if (server !== undefined) await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
